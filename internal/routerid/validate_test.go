package routerid

import (
	"net/netip"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestValidate(t *testing.T) {
	tests := []struct {
		addr    netip.Addr
		wantErr string
	}{
		{addr: ip("10.0.0.1")},
		{addr: ip("192.0.2.1")},
		{addr: ip("0.0.0.1")},
		{addr: ip("126.255.255.255")},
		{addr: ip("128.0.0.0")},
		{addr: ip("169.253.255.255")},
		{addr: ip("223.255.255.255")},
		{addr: ip("240.0.0.1")},
		{addr: ip("255.255.255.254")},
		{addr: netip.Addr{}, wantErr: "router ID is empty"},
		{addr: ip("0.0.0.0"), wantErr: "router ID 0.0.0.0 is in the unspecified range 0.0.0.0/32"},
		{addr: ip("127.0.0.1"), wantErr: "router ID 127.0.0.1 is in the loopback range 127.0.0.0/8"},
		{addr: ip("127.255.255.255"), wantErr: "router ID 127.255.255.255 is in the loopback range 127.0.0.0/8"},
		{addr: ip("169.254.0.1"), wantErr: "router ID 169.254.0.1 is in the link-local range 169.254.0.0/16"},
		{addr: ip("224.0.0.5"), wantErr: "router ID 224.0.0.5 is in the multicast range 224.0.0.0/4"},
		{addr: ip("239.255.255.255"), wantErr: "router ID 239.255.255.255 is in the multicast range 224.0.0.0/4"},
		{addr: ip("255.255.255.255"), wantErr: "router ID 255.255.255.255 is in the broadcast range 255.255.255.255/32"},
		{addr: ip("::1"), wantErr: "router ID ::1 is not an IPv4 address: BGP router IDs are 32-bit"},
		{addr: ip("fe80::1%eth0\nlevel=error"), wantErr: "router ID fe80::1 is not an IPv4 address: BGP router IDs are 32-bit"},
		{addr: ip("::ffff:10.0.0.1"), wantErr: "router ID ::ffff:10.0.0.1 is not an IPv4 address: BGP router IDs are 32-bit"},
	}
	for _, tc := range tests {
		t.Run(tc.addr.String(), func(t *testing.T) {
			if diff := cmp.Diff(tc.wantErr, errText(Validate(tc.addr))); diff != "" {
				t.Errorf("Validate(%s) (-want +got):\n%s", tc.addr, diff)
			}
		})
	}
}
