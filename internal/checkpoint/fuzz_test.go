package checkpoint

import (
	"testing"
)

// FuzzDecode: the checkpoint is read from disk, so any bytes may be there. Decode never
// panics, and what it accepts encodes to a file it accepts again as the same state.
func FuzzDecode(f *testing.F) {
	good, err := Encode(Checkpoint{BootID: "b1", Desired: state()})
	if err != nil {
		f.Fatal(err)
	}
	empty, err := Encode(Checkpoint{})
	if err != nil {
		f.Fatal(err)
	}
	for _, seed := range [][]byte{good, empty, []byte(`{"version":2}`), []byte(`null`), []byte(`{"version":2,"instances":[{}]}`)} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := Decode(data)
		if err != nil {
			return
		}
		enc, err := Encode(c)
		if err != nil {
			t.Fatalf("Encode of a decoded checkpoint: %v", err)
		}
		again, err := Decode(enc)
		if err != nil {
			t.Fatalf("Decode refuses what Encode wrote from an accepted file: %v\n%s", err, enc)
		}
		enc2, err := Encode(again)
		if err != nil || string(enc2) != string(enc) {
			t.Fatalf("an accepted file does not survive a round trip (%v):\n%s\n---\n%s", err, enc, enc2)
		}
	})
}
