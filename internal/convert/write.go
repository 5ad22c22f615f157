package convert

import (
	"encoding/json"
	"fmt"
	"io"

	"sigs.k8s.io/yaml"
)

// Write writes objs as a YAML stream, "---" between objects, that `kubectl apply -f`
// takes. The fields an API object always serialises but that mean nothing before it
// is created (an empty status, a null creationTimestamp) are left out, so the output
// holds only what the conversion set.
func Write(w io.Writer, objs []Object) error {
	for i, o := range objs {
		data, err := json.Marshal(o)
		if err != nil {
			return fmt.Errorf("%s %s: %w", kindOf(o), o.GetName(), err)
		}
		var m map[string]any
		if err := json.Unmarshal(data, &m); err != nil {
			return fmt.Errorf("%s %s: %w", kindOf(o), o.GetName(), err)
		}
		delete(m, "status")
		if md, ok := m["metadata"].(map[string]any); ok {
			delete(md, "creationTimestamp")
		}
		out, err := yaml.Marshal(m)
		if err != nil {
			return fmt.Errorf("%s %s: %w", kindOf(o), o.GetName(), err)
		}
		if i > 0 {
			out = append([]byte("---\n"), out...)
		}
		if _, err := w.Write(out); err != nil {
			return err
		}
	}
	return nil
}
