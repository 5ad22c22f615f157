package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"kbgp.io/kbgp/internal/podnet"
)

func newInstallCNICommand() *cobra.Command {
	var binDir string
	cmd := &cobra.Command{
		Use:   "install-cni",
		Short: "Install the kbgp-cni plugin, from beside this binary, into the CNI bin directory (the pod network's init container)",
		Args:  cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			self, err := os.Executable()
			if err != nil {
				return err
			}
			return installCNI(filepath.Join(filepath.Dir(self), podnet.PluginType), binDir)
		},
	}
	cmd.Flags().StringVar(&binDir, "cni-bin-dir", "/opt/cni/bin", "the CNI plugin directory the container runtime execs plugins from")
	return cmd
}

// installCNI copies the plugin binary into dir as kbgp-cni, atomically (a temporary
// file renamed over the old plugin), so a runtime starting a pod meanwhile runs either
// the old plugin or the new one, never half a file.
func installCNI(plugin, dir string) error {
	src, err := os.Open(plugin)
	if err != nil {
		return err
	}
	defer src.Close()
	tmp, err := os.CreateTemp(dir, "."+podnet.PluginType+".*")
	if err != nil {
		return fmt.Errorf("install %s: %w", podnet.PluginType, err)
	}
	defer os.Remove(tmp.Name())
	if _, err := io.Copy(tmp, src); err != nil {
		tmp.Close()
		return fmt.Errorf("install %s: %w", podnet.PluginType, err)
	}
	if err := tmp.Chmod(0o755); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	dst := filepath.Join(dir, podnet.PluginType)
	if err := os.Rename(tmp.Name(), dst); err != nil {
		return fmt.Errorf("install %s: %w", podnet.PluginType, err)
	}
	fmt.Println("installed", dst)
	return nil
}
