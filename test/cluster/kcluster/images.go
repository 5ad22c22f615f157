package kcluster

import (
	"archive/tar"
	"bytes"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"time"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
)

// The images every node's runtime has before anything is scheduled: no registry is
// reachable here, and their tags are not :latest, so kubelets never try to pull.
const (
	KbgpImage  = "kbgp.local/kbgp"
	KbgpTagA   = "test-a"
	KbgpTagB   = "test-b"
	PauseImage = "kbgp.local/pause:test"
	EchoImage  = "kbgp.local/echo:test"
)

// nonroot is the image's default user, as in the Dockerfile's distroless base
// (gcr.io/distroless/static-debian12:nonroot).
const nonroot = "65532:65532"

// imageArchive is one image written as a docker-archive tar (what `ctr images import`
// reads).
type imageArchive struct {
	ref  string
	path string
}

// buildImages builds the static binaries (kbgp exactly as the Dockerfile does) and
// writes the images into dir: kbgp (with kbgp-cni beside it) under two tags that differ only in a label (so a
// rollout can be driven), the pod sandbox and the echo workload.
func buildImages(repo, dir string) ([]imageArchive, error) {
	bins := filepath.Join(dir, "bin")
	if err := goBuild(repo, bins, "-ldflags", "-s -w -X main.version=cluster", "./cmd/kbgp", "./cmd/kbgp-cni"); err != nil {
		return nil, err
	}
	if err := goBuild(repo, bins, "-ldflags", "-s -w", "./test/cluster/images/pause", "./test/cluster/images/echo"); err != nil {
		return nil, err
	}
	passwd := map[string]string{
		"etc/passwd": "root:x:0:0:root:/root:/sbin/nologin\nnonroot:x:65532:65532:nonroot:/home/nonroot:/sbin/nologin\n",
		"etc/group":  "root:x:0:\nnonroot:x:65532:\n",
	}
	// The CNI plugin install-cni copies out of the image, as the Dockerfile puts it.
	cni := map[string]string{"usr/local/bin/kbgp-cni": "kbgp-cni"}
	specs := []struct {
		ref, bin, path, user, version string
		// beside are more binaries in the image: path → built binary.
		beside map[string]string
	}{
		{KbgpImage + ":" + KbgpTagA, "kbgp", "usr/local/bin/kbgp", nonroot, KbgpTagA, cni},
		{KbgpImage + ":" + KbgpTagB, "kbgp", "usr/local/bin/kbgp", nonroot, KbgpTagB, cni},
		{PauseImage, "pause", "pause", nonroot, "test", nil},
		{EchoImage, "echo", "echo", nonroot, "test", nil},
	}
	var out []imageArchive
	for _, s := range specs {
		files := map[string]string{}
		for k, v := range passwd {
			files[k] = v
		}
		binaries := map[string]string{s.path: s.bin}
		maps.Copy(binaries, s.beside)
		for path, name := range binaries {
			bin, err := os.ReadFile(filepath.Join(bins, name))
			if err != nil {
				return nil, err
			}
			files[path] = string(bin)
		}
		path := filepath.Join(dir, fmt.Sprintf("image-%d.tar", len(out)))
		if err := writeImage(s.ref, path, files, "/"+s.path, s.user, s.version); err != nil {
			return nil, fmt.Errorf("image %s: %w", s.ref, err)
		}
		out = append(out, imageArchive{ref: s.ref, path: path})
	}
	return out, nil
}

// goBuild builds pkgs into dir as static binaries, with the Dockerfile's flags.
func goBuild(repo, dir string, extra ...string) error {
	args := append([]string{"build", "-trimpath", "-buildvcs=false", "-o", dir + "/"}, extra...)
	cmd := exec.Command("go", args...)
	cmd.Dir = repo
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("go %v: %v: %s", args, err, out)
	}
	return nil
}

// baseDirs are the directories of distroless's static image the Dockerfile builds on,
// with their modes: a process that writes to them fails the same way in both.
var baseDirs = []tar.Header{
	{Name: "tmp/", Mode: 0o1777},
	{Name: "root/", Mode: 0o700},
	{Name: "home/nonroot/", Mode: 0o700, Uid: 65532, Gid: 65532},
}

// writeImage writes a one-layer image holding distroless's directories and files
// (path → content; the entrypoint and usr/local/bin's binaries get mode 0755, as the
// Dockerfile's COPY keeps them) with entrypoint, user and a version label, as a
// docker-archive tar.
func writeImage(ref, path string, files map[string]string, entrypoint, user, version string) error {
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	dirs := map[string]bool{}
	mtime := time.Unix(0, 0)
	for _, name := range sortedKeys(files) {
		for d := filepath.Dir(name); d != "."; d = filepath.Dir(d) {
			dirs[d] = true
		}
	}
	for _, d := range sortedKeys(dirs) {
		if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeDir, Name: d + "/", Mode: 0o755, ModTime: mtime}); err != nil {
			return err
		}
	}
	for _, h := range baseDirs {
		h.Typeflag, h.ModTime = tar.TypeDir, mtime
		if err := tw.WriteHeader(&h); err != nil {
			return err
		}
	}
	for _, name := range sortedKeys(files) {
		mode := int64(0o644)
		if "/"+name == entrypoint || filepath.Dir(name) == "usr/local/bin" {
			mode = 0o755
		}
		body := files[name]
		if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeReg, Name: name, Mode: mode, Size: int64(len(body)), ModTime: mtime}); err != nil {
			return err
		}
		if _, err := io.WriteString(tw, body); err != nil {
			return err
		}
	}
	if err := tw.Close(); err != nil {
		return err
	}
	layerBytes := buf.Bytes()
	layer, err := tarball.LayerFromOpener(func() (io.ReadCloser, error) {
		return io.NopCloser(bytes.NewReader(layerBytes)), nil
	})
	if err != nil {
		return err
	}
	img, err := mutate.AppendLayers(empty.Image, layer)
	if err != nil {
		return err
	}
	cf, err := img.ConfigFile()
	if err != nil {
		return err
	}
	cf = cf.DeepCopy()
	cf.OS = "linux"
	cf.Architecture = runtime.GOARCH
	cf.Config = v1.Config{
		Entrypoint: []string{entrypoint},
		User:       user,
		Labels:     map[string]string{"org.opencontainers.image.version": version},
	}
	img, err = mutate.ConfigFile(img, cf)
	if err != nil {
		return err
	}
	tag, err := name.NewTag(ref)
	if err != nil {
		return err
	}
	return tarball.WriteToFile(path, tag, img)
}
