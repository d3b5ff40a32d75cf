package runtime

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"

	"github.com/kgen-dev/kgen/generated"
	"github.com/kgen-dev/kgen/runtime/table"
)

// ErrHash matches a blob whose bytes do not match the table's SHA-256.
var ErrHash = errors.New("artifact hash mismatch")

// HashError says an artifact was refused before reaching the driver.
type HashError struct {
	Artifact   string
	Want, Have string
}

func (e *HashError) Error() string {
	return fmt.Sprintf("%s: sha256 %s, the table says %s: refusing to load it (regenerate with `go generate ./...`)", e.Artifact, e.Have, e.Want)
}

// Is matches ErrHash.
func (e *HashError) Is(t error) bool { return t == ErrHash }

// Blobs is where SPIR-V comes from; tests swap it to feed altered bytes.
var Blobs fs.FS = generated.SPIRV

// SPIRV returns v's blob after checking its SHA-256 against the table.
func SPIRV(v *table.Variant) ([]byte, error) {
	b, err := fs.ReadFile(Blobs, v.Artifact.Path)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", v.Artifact.Path, err)
	}
	return CheckHash(v, b)
}

// CheckHash returns b if it hashes to v.Artifact.SHA256.
func CheckHash(v *table.Variant, b []byte) ([]byte, error) {
	sum := sha256.Sum256(b)
	if have := hex.EncodeToString(sum[:]); have != v.Artifact.SHA256 {
		return nil, &HashError{Artifact: v.Artifact.Path, Want: v.Artifact.SHA256, Have: have}
	}
	return b, nil
}

func generatedDtypes() []table.Dtype { return generated.Dtypes }

// Dtypes returns the table's dtypes.
func Dtypes() []table.Dtype { return generated.Dtypes }
