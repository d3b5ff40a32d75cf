package main

import (
	"errors"
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

// openCUDA opens the CUDA driver, loads a compiled module of arch's HIP
// source and describes the device for selection with the arch's spec facts
// and the device's own name, driver and limits.
func openCUDA(arch, module string) (*driver.Context, *driver.Module, kruntime.Device, error) {
	var dev kruntime.Device
	image, err := os.ReadFile(module)
	if err != nil {
		return nil, nil, dev, &exitError{2, err}
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
	mod, err := ctx.LoadModule(image)
	if err != nil {
		ctx.Close()
		return nil, nil, dev, err
	}
	info := ctx.Info()
	dev.Name, dev.Driver, dev.ComputeUnits, dev.MaxWorkgroup = info.Name, info.DriverString(), info.ComputeUnits, info.MaxThreadsPerBlock
	return ctx, mod, dev, nil
}
