package gobgptest_test

import (
	"bytes"
	"net/netip"
	"slices"
	"testing"

	"kbgp.io/kbgp/internal/testing/gobgptest"
)

// wireMessage is a BGP message of the given type and body.
func wireMessage(typ byte, body ...byte) []byte {
	m := append(bytes.Repeat([]byte{0xff}, 16), 0, byte(19+len(body)), typ)
	return append(m, body...)
}

func TestSplitMessages(t *testing.T) {
	keepalive := wireMessage(gobgptest.WireKeepalive)
	eor := wireMessage(gobgptest.WireUpdate, 0, 0, 0, 0)
	update := wireMessage(gobgptest.WireUpdate, 0, 0, 0, 4, 0x40, 1, 1, 0, 32, 10, 0, 0, 1)
	stream := slices.Concat(keepalive, update, eor, update[:10])
	got, err := gobgptest.SplitMessages(stream)
	if err != nil {
		t.Fatal(err)
	}
	want := []gobgptest.WireMessage{
		{Offset: 0, Type: gobgptest.WireKeepalive, Len: 19},
		{Offset: 19, Type: gobgptest.WireUpdate, Len: len(update)},
		{Offset: 19 + len(update), Type: gobgptest.WireUpdate, Len: 23},
	}
	if !slices.Equal(got, want) {
		t.Fatalf("SplitMessages = %+v, want %+v (the cut-off message left out)", got, want)
	}
	if !got[1].Announces() || got[2].Announces() || got[0].Announces() {
		t.Fatalf("Announces: want only the UPDATE with a prefix, not the End-of-RIB or the KEEPALIVE")
	}
	if ps, err := gobgptest.UpdatePrefixes(update); err != nil || !slices.Equal(ps, []netip.Prefix{netip.MustParsePrefix("10.0.0.1/32")}) {
		t.Fatalf("UpdatePrefixes = %v, %v; want [10.0.0.1/32]", ps, err)
	}
	if ps, err := gobgptest.UpdatePrefixes(eor); err != nil || len(ps) != 0 {
		t.Fatalf("UpdatePrefixes of an End-of-RIB = %v, %v; want none", ps, err)
	}
	if _, err := gobgptest.UpdatePrefixes(keepalive); err == nil {
		t.Fatal("UpdatePrefixes of a KEEPALIVE: want an error")
	}
	bad := slices.Concat(keepalive, bytes.Repeat([]byte{0}, 19))
	if got, err := gobgptest.SplitMessages(bad); err == nil || len(got) != 1 {
		t.Fatalf("SplitMessages of a stream out of sync = %v, %v; want the first message and an error", got, err)
	}
}

// FuzzSplitMessages: whatever the bytes, the messages found lie inside the stream,
// one after the other, and reading the prefixes of each never panics.
func FuzzSplitMessages(f *testing.F) {
	f.Add(wireMessage(gobgptest.WireKeepalive))
	f.Add(append(wireMessage(gobgptest.WireUpdate, 0, 0, 0, 0), 0xff, 0xff))
	f.Fuzz(func(t *testing.T, stream []byte) {
		msgs, _ := gobgptest.SplitMessages(stream)
		next := 0
		for _, m := range msgs {
			if m.Offset != next || m.Len < 19 || m.Offset+m.Len > len(stream) {
				t.Fatalf("message %+v out of place (next at %d, stream %d bytes)", m, next, len(stream))
			}
			next += m.Len
			_, _ = gobgptest.UpdatePrefixes(stream[m.Offset : m.Offset+m.Len])
		}
	})
}
