package checkpoint

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// FileName is the checkpoint's name in the agent's state directory.
const FileName = "checkpoint.json"

// Write replaces the checkpoint in dir with data atomically: a crash leaves the old
// file or the new one, never half of one. The file is readable by its owner only.
func Write(dir string, data []byte) error {
	tmp, err := os.CreateTemp(dir, FileName+".tmp-*")
	if err != nil {
		return fmt.Errorf("write the checkpoint: %w", err)
	}
	defer os.Remove(tmp.Name()) // after the rename there is nothing left to remove
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return fmt.Errorf("write the checkpoint: %w", err)
	}
	// The data must be on disk before the name points at it, or a power loss could
	// leave an empty file under the name.
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return fmt.Errorf("write the checkpoint: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("write the checkpoint: %w", err)
	}
	if err := os.Rename(tmp.Name(), filepath.Join(dir, FileName)); err != nil {
		return fmt.Errorf("write the checkpoint: %w", err)
	}
	return nil
}

// Read returns the checkpoint in dir, its bytes as written, and whether there was one.
func Read(dir string) (Checkpoint, []byte, bool, error) {
	data, err := os.ReadFile(filepath.Join(dir, FileName))
	if errors.Is(err, os.ErrNotExist) {
		return Checkpoint{}, nil, false, nil
	}
	if err != nil {
		return Checkpoint{}, nil, false, fmt.Errorf("read the checkpoint: %w", err)
	}
	c, err := Decode(data)
	if err != nil {
		return Checkpoint{}, nil, false, err
	}
	return c, data, true, nil
}
