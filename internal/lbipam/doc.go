// Package lbipam decides which load-balancer addresses LoadBalancer Services get from
// the LoadBalancerIPPools. It is pure: the operator's controller feeds it pools and
// Services and writes what it decides. It keeps no state of its own that the API does
// not hold too: the controller rebuilds it from Services' status at start (Restore),
// so a new leader picks up exactly what the previous one handed out.
package lbipam
