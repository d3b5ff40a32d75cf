package driver

import (
	"errors"
	"fmt"
	"strings"
)

// Image is a code image (cubin, PTX, fatbin or AMD code object) and the name
// errors report it under, usually its file.
type Image struct {
	Name string
	Data []byte
}

// Modules is several loaded modules searched together by kernel name: a
// generated source too large for one compile is built in parts, and each
// family has its own file. A kernel must be in exactly one of them.
type Modules struct {
	mods  []*Module
	names []string
}

// LoadModules loads every image; on an error the ones already loaded are
// unloaded and the error names the image.
func (c *Context) LoadModules(images ...Image) (*Modules, error) {
	if len(images) == 0 {
		return nil, errors.New("driver: LoadModules: no image")
	}
	s := &Modules{}
	for i, img := range images {
		name := img.Name
		if name == "" {
			name = fmt.Sprintf("module %d", i+1)
		}
		m, err := c.LoadModule(img.Data)
		if err != nil {
			s.Unload()
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		s.mods, s.names = append(s.mods, m), append(s.names, name)
	}
	return s, nil
}

// Names lists the modules' names in load order.
func (s *Modules) Names() []string { return append([]string(nil), s.names...) }

// Function looks a kernel up in every module. A kernel in none is an error
// matching ErrNotFound (with the driver's NOT_FOUND error and the modules
// searched); a kernel in two modules is an error naming both.
func (s *Modules) Function(name string) (*Function, error) {
	var found *Function
	var in string
	var notFound error
	for i, m := range s.mods {
		f, err := m.Function(name)
		if errors.Is(err, ErrNotFound) {
			notFound = err
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", s.names[i], err)
		}
		if found != nil {
			return nil, fmt.Errorf("kernel %q is in two modules, %s and %s: build each kernel into one module only", name, in, s.names[i])
		}
		found, in = f, s.names[i]
	}
	if found != nil {
		return found, nil
	}
	if notFound == nil {
		return nil, fmt.Errorf("kernel %q: %w (no module loaded)", name, ErrNotFound)
	}
	where := "module " + s.names[0]
	if len(s.names) > 1 {
		where = "any of the modules " + strings.Join(s.names, ", ")
	}
	return nil, fmt.Errorf("%w, in %s", notFound, where)
}

// Has reports whether a kernel is in one of the modules; an error is a
// kernel in two modules or a failing driver.
func (s *Modules) Has(name string) (bool, error) {
	_, err := s.Function(name)
	if errors.Is(err, ErrNotFound) {
		return false, nil
	}
	return err == nil, err
}

// Unload unloads every module; the first error is returned.
func (s *Modules) Unload() error {
	var first error
	for _, m := range s.mods {
		if err := m.Unload(); err != nil && first == nil {
			first = err
		}
	}
	s.mods, s.names = nil, nil
	return first
}
