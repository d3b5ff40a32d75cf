package main

import (
	"errors"
	"fmt"
	"os"

	kruntime "github.com/kgen-dev/kgen/runtime"
	"github.com/kgen-dev/kgen/runtime/driver"
	"github.com/kgen-dev/kgen/runtime/vulkan"
)

// openVulkan opens the Vulkan loader and a device; a missing loader or
// device is exit 3 with what to install. close releases both.
func openVulkan(index int) (d *vulkan.Device, close func(), err error) {
	inst, err := vulkan.Open()
	if err != nil {
		if errors.Is(err, vulkan.ErrNoLoader) || errors.Is(err, vulkan.ErrNoDevice) {
			return nil, nil, &exitError{3, err}
		}
		return nil, nil, err
	}
	if index < 0 || index >= len(inst.Devices()) {
		inst.Close()
		return nil, nil, &exitError{2, errors.New("--device: no Vulkan device with that index")}
	}
	d, err = inst.OpenDevice(index)
	if err != nil {
		inst.Close()
		return nil, nil, err
	}
	return d, func() { d.Close(); inst.Close() }, nil
}

// readModules reads the --module files (repeatable, comma-separated); none
// or an unreadable one is exit 2.
func readModules(flag string, paths []string) ([]driver.Image, error) {
	var images []driver.Image
	for _, p := range paths {
		if p == "" {
			continue
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return nil, &exitError{2, err}
		}
		images = append(images, driver.Image{Name: p, Data: b})
	}
	if len(images) == 0 {
		return nil, &exitError{2, fmt.Errorf("%s: give the compiled modules (cubin, PTX or code object) of generated/hip/<family>_<arch>.hip, e.g. --module gemv_sm90.cubin,quant_q8k_sm90.cubin", flag)}
	}
	return images, nil
}

// openCUDA opens the CUDA driver, loads the compiled modules of arch's HIP
// sources (kernels are looked up across all of them) and describes the
// device for selection with the arch's spec facts and the device's own
// name, driver and limits.
func openCUDA(arch string, modules []string) (*driver.Context, *driver.Modules, kruntime.Device, error) {
	var dev kruntime.Device
	images, err := readModules("--module", modules)
	if err != nil {
		return nil, nil, dev, err
	}
	if dev, err = kruntime.ArchDevice(arch); err != nil {
		return nil, nil, dev, &exitError{2, err}
	}
	ctx, err := driver.Open(driver.CUDA, 0)
	if err != nil {
		if errors.Is(err, driver.ErrNoDriver) {
			return nil, nil, dev, &exitError{3, err}
		}
		return nil, nil, dev, err
	}
	mods, err := ctx.LoadModules(images...)
	if err != nil {
		ctx.Close()
		return nil, nil, dev, err
	}
	info := ctx.Info()
	dev.Name, dev.Driver, dev.ComputeUnits, dev.MaxWorkgroup = info.Name, info.DriverString(), info.ComputeUnits, info.MaxThreadsPerBlock
	return ctx, mods, dev, nil
}
