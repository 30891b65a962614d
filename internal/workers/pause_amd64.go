package workers

// pause executes the PAUSE instruction n times: a spin-wait hint that
// lets the core's other thread, or the hypervisor, have the cycles.
//
//go:noescape
func pause(n int)
