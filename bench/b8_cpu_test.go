//go:build bench

package bench

import (
	"fmt"
	"time"
)

// b8CPU is the CPU each part of B8's system used: the API server, etcd, the agent,
// FRR, this process (the operator, the Services' client and watch, the poll loop) and
// the processes this one started and reaped (each poll's vtysh, tcpdump). All of them
// share the machine's cores, so a step whose create calls slow down says here who
// else was running.
type b8CPU struct {
	apiserver, etcd, agent, frr, bench, reaped time.Duration
}

// b8Processes are the PIDs b8CPU reads.
type b8Processes struct{ apiserver, etcd, agent, frr int }

func (p b8Processes) cpu() b8CPU {
	self, reaped := statCPU("/proc/self/stat")
	return b8CPU{apiserver: procCPU(p.apiserver), etcd: procCPU(p.etcd), agent: procCPU(p.agent), frr: procCPU(p.frr), bench: self, reaped: reaped}
}

func (c b8CPU) since(b b8CPU) b8CPU {
	return b8CPU{c.apiserver - b.apiserver, c.etcd - b.etcd, c.agent - b.agent, c.frr - b.frr, c.bench - b.bench, c.reaped - b.reaped}
}

// String is each part's CPU as a share of one core over wall.
func (c b8CPU) String(wall time.Duration) string {
	core := func(d time.Duration) string { return fmt.Sprintf("%.2f", d.Seconds()/wall.Seconds()) }
	return fmt.Sprintf("API server %s, etcd %s, agent %s, FRR %s, benchmark process (operator, client, polls) %s, its reaped children (vtysh, tcpdump) %s cores over %s",
		core(c.apiserver), core(c.etcd), core(c.agent), core(c.frr), core(c.bench), core(c.reaped), ms(wall))
}
