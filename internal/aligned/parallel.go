package aligned

import "github.com/pond-go/pond/internal/workers"

// SetWorkers gives the group a pool of workers to spread its work over
// (nil: all on the caller's goroutine).
func (g *Group) SetWorkers(p *workers.Pool) { g.pool = p }
