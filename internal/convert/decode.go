package convert

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"
)

// maxListDepth bounds how deeply Lists of Lists are expanded.
const maxListDepth = 4

// decode splits the input into its YAML documents and decodes each into a map, with
// the items of a List (what `kubectl get -o yaml` prints for several objects) as
// objects of their own. Numbers stay json.Number, so a 32-bit ASN or an int64 keeps
// every digit and a fraction is told apart from an integer.
func decode(input []byte) ([]map[string]any, error) {
	r := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(input)))
	var out []map[string]any
	for n := 1; ; n++ {
		chunk, err := r.Read()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, fmt.Errorf("document %d: %w", n, err)
		}
		v, err := unmarshal(chunk)
		if err != nil {
			return nil, fmt.Errorf("document %d: %w", n, err)
		}
		if v == nil {
			continue // empty document, or comments only
		}
		obj, isMap := v.(map[string]any)
		if !isMap {
			return nil, fmt.Errorf("document %d is not an object (a Kubernetes object starts with apiVersion and kind)", n)
		}
		out = appendObjects(out, obj, 0)
	}
}

// appendObjects appends obj, or the items of obj when it is a List.
func appendObjects(out []map[string]any, obj map[string]any, depth int) []map[string]any {
	kind, _ := obj["kind"].(string)
	items, isList := obj["items"].([]any)
	if !isList || depth >= maxListDepth || !strings.HasSuffix(kind, "List") {
		return append(out, obj)
	}
	for _, item := range items {
		if m, isMap := item.(map[string]any); isMap {
			out = appendObjects(out, m, depth+1)
		}
	}
	return out
}

// unmarshal decodes one YAML document. The YAML library is not ours; a panic in it on
// malformed input becomes an error, so the command fails with a message instead of a
// stack trace.
func unmarshal(chunk []byte) (v any, err error) {
	defer func() {
		if r := recover(); r != nil {
			v, err = nil, fmt.Errorf("cannot decode YAML: %v", r)
		}
	}()
	err = yaml.Unmarshal(chunk, &v, func(d *json.Decoder) *json.Decoder {
		d.UseNumber()
		return d
	})
	return v, err
}
