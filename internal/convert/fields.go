package convert

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// dropped is the message of a field the conversion did not read.
const dropped = "has no kbgp equivalent: dropped"

// A source is one input object under conversion. It records which of its fields the
// conversion read, so that every field it did not read is reported (reportUnread)
// instead of disappearing from the output unnoticed.
type source struct {
	apiVersion, kind, name string
	root                   map[string]any
	// read holds the paths of fields consumed whole: a scalar that was converted, or a
	// subtree that was converted, reported or deliberately ignored.
	read map[string]bool
	// seen holds the paths of objects and lists the conversion descended into; their
	// members are checked one by one.
	seen map[string]bool
	// asked holds, per object path, the member keys the conversion looked for, present
	// or not: the fields of the kind, which a misspelt field is compared with.
	asked    map[string][]string
	warnings []Warning
}

func newSource(root map[string]any) *source {
	return &source{root: root, read: map[string]bool{}, seen: map[string]bool{}, asked: map[string][]string{}}
}

// warn records a warning about the field at path ("" for the object as a whole).
func (s *source) warn(path, format string, args ...any) {
	s.warnings = append(s.warnings, Warning{Kind: s.kind, Name: s.name, Path: path, Message: fmt.Sprintf(format, args...)})
}

// top is the object's root.
func (s *source) top() node { return node{src: s, val: s.root, ok: true} }

// reportUnread adds a warning for every field no conversion step read: fields kbgp
// has no equivalent for, misspelt fields, fields of newer versions of the source kind.
// A field is reported once, at the highest level nothing below was read.
func (s *source) reportUnread() { s.walk("", s.root, "") }

// walk reports what was not read at path and below; meant is the field of the kind a
// field at path is most likely a misspelling of ("" when none).
func (s *source) walk(path string, v any, meant string) {
	if s.read[path] {
		return
	}
	if path != "" && !s.seen[path] {
		if meant != "" {
			s.warn(path, "is not a field of %s: dropped; did you mean %s?", s.kind, meant)
		} else {
			s.warn(path, dropped)
		}
		return
	}
	switch v := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			s.walk(joinKey(path, k), v[k], s.meant(path, k, v))
		}
	case []any:
		for i, item := range v {
			s.walk(joinIndex(path, i), item, "")
		}
	default:
		s.warn(path, dropped)
	}
}

// meant is the field the conversion looked for in the object obj at path, absent from
// it, that key most likely misspells: the same but for case (localpref, localPref), or
// one edit away (two for keys longer than five characters), a swap of neighbours
// counting as one.
func (s *source) meant(path, key string, obj map[string]any) string {
	best, bestDist := "", 3
	for _, field := range s.asked[path] {
		if _, present := obj[field]; present {
			continue
		}
		d := editDistance(strings.ToLower(key), strings.ToLower(field))
		if d < bestDist && (d <= 1 || len(key) > 5) {
			best, bestDist = field, d
		}
	}
	return best
}

// editDistance is the optimal string alignment distance of a and b: insertions,
// deletions, substitutions and swaps of adjacent bytes.
func editDistance(a, b string) int {
	prev2 := make([]int, len(b)+1)
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(b)]
}

// plainKey is a map key that reads unambiguously in a dotted path.
var plainKey = regexp.MustCompile(`^[A-Za-z0-9_-]+$`)

func joinKey(path, key string) string {
	if !plainKey.MatchString(key) {
		return path + "[" + strconv.Quote(key) + "]"
	}
	if path == "" {
		return key
	}
	return path + "." + key
}

func joinIndex(path string, i int) string { return path + "[" + strconv.Itoa(i) + "]" }

// A node is one value of a source at a path; ok is false when the field is absent.
// Reading a field through a node records it as read.
type node struct {
	src  *source
	path string
	val  any
	ok   bool
}

// warn records a warning about this field.
func (n node) warn(format string, args ...any) { n.src.warn(n.path, format, args...) }

// consume records the field and everything below it as read, for a field that was
// converted or reported as a whole.
func (n node) consume() {
	if n.ok {
		n.src.read[n.path] = true
	}
}

// child is the member key of this object, not yet recorded as read.
func (n node) child(key string) node {
	if !slices.Contains(n.src.asked[n.path], key) {
		n.src.asked[n.path] = append(n.src.asked[n.path], key)
	}
	c := node{src: n.src, path: joinKey(n.path, key)}
	if m, isMap := n.val.(map[string]any); isMap {
		c.val, c.ok = m[key]
	}
	if c.ok && c.val == nil {
		// "field: null" or a bare "field:" is the field left unset.
		n.src.read[c.path] = true
		c.ok = false
	}
	return c
}

// has reports whether the member key is present.
func (n node) has(key string) bool { return n.child(key).ok }

// isObj reports whether this value is an object; a value of another type is reported
// and consumed.
func (n node) isObj() bool {
	if !n.ok {
		return false
	}
	if _, isMap := n.val.(map[string]any); !isMap {
		n.warn("must be an object: dropped")
		n.consume()
		return false
	}
	n.src.seen[n.path] = true
	return true
}

// obj is the member key as an object whose members are read one by one; absent (ok
// false) when missing or not an object.
func (n node) obj(key string) node {
	c := n.child(key)
	if !c.isObj() {
		return node{src: n.src, path: c.path}
	}
	return c
}

// list is the member key as a list, each item a node.
func (n node) list(key string) []node {
	c := n.child(key)
	if !c.ok {
		return nil
	}
	items, isList := c.val.([]any)
	if !isList {
		c.warn("must be a list: dropped")
		c.consume()
		return nil
	}
	n.src.seen[c.path] = true
	out := make([]node, len(items))
	for i, v := range items {
		out[i] = node{src: n.src, path: joinIndex(c.path, i), val: v, ok: true}
	}
	return out
}

// entry is one member of an object read with entries.
type entry struct {
	key string
	node
}

// entries are the members of this object in key order (for maps such as matchLabels).
func (n node) entries() []entry {
	m, isMap := n.val.(map[string]any)
	if !isMap {
		return nil
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	out := make([]entry, len(keys))
	for i, k := range keys {
		out[i] = entry{key: k, node: n.child(k)}
	}
	return out
}

// str reads the member key as a string.
func (n node) str(key string) (string, bool) { return n.child(key).asStr() }

// asStr reads this value as a string.
func (n node) asStr() (string, bool) {
	if !n.ok {
		return "", false
	}
	n.consume()
	s, isStr := n.val.(string)
	if !isStr {
		n.warn("must be a string: dropped")
		return "", false
	}
	return s, true
}

// int reads the member key as an integer.
func (n node) int(key string) (int64, bool) { return n.child(key).asInt() }

// asInt reads this value as an integer.
func (n node) asInt() (int64, bool) {
	if !n.ok {
		return 0, false
	}
	n.consume()
	num, isNum := n.val.(json.Number)
	if !isNum {
		n.warn("must be an integer: dropped")
		return 0, false
	}
	i, err := num.Int64()
	if err != nil {
		n.warn("must be an integer, not %s: dropped", num)
		return 0, false
	}
	return i, true
}

// intIn reads the member key as an integer within kbgp's bounds for the field it maps
// to; a value outside them is reported and dropped.
func (n node) intIn(key string, lo, hi int64) (int64, bool) {
	v, ok := n.int(key)
	if ok && (v < lo || v > hi) {
		n.child(key).warn("%d is outside kbgp's range %d..%d: dropped", v, lo, hi)
		return 0, false
	}
	return v, ok
}

// int32In is intIn for the int32 fields of the kbgp API.
func (n node) int32In(key string, lo, hi int64) *int32 {
	v, ok := n.intIn(key, lo, hi)
	if !ok {
		return nil
	}
	i := int32(v)
	return &i
}

// boolean reads the member key as a boolean.
func (n node) boolean(key string) (bool, bool) {
	c := n.child(key)
	if !c.ok {
		return false, false
	}
	c.consume()
	b, isBool := c.val.(bool)
	if !isBool {
		c.warn("must be true or false: dropped")
		return false, false
	}
	return b, true
}

// strList reads the member key as a list of strings; items of another type are
// reported and left out.
func (n node) strList(key string) []string {
	var out []string
	for _, item := range n.list(key) {
		if s, ok := item.asStr(); ok {
			out = append(out, s)
		}
	}
	return out
}

// drop consumes the member key, if present, with a warning saying why it has no kbgp
// equivalent.
func (n node) drop(key, format string, args ...any) {
	c := n.child(key)
	if !c.ok {
		return
	}
	c.consume()
	c.warn(format, args...)
}

// ignore consumes the member key without a warning: for values that mean what kbgp
// does anyway (MetalLB's aggregationLength 32, for instance).
func (n node) ignore(key string) { n.child(key).consume() }
