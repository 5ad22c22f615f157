package convert

import (
	"fmt"
	"slices"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	kbgpv1 "kbgp.io/kbgp/api/v1alpha1"
)

// Object is a kbgp API object with its TypeMeta set: what controller-runtime calls
// client.Object, declared here so that the package depends on apimachinery alone, like
// the other pure packages.
type Object interface {
	metav1.Object
	runtime.Object
}

// Warning is something of the input that the output does not carry as it was: a field
// without kbgp equivalent, a value kbgp does not accept, an approximate mapping, an
// object that was skipped.
type Warning struct {
	// Kind and Name name the input object.
	Kind, Name string
	// Path is the field, e.g. spec.virtualRouters[0].podIPPoolSelector; empty when the
	// warning is about the object as a whole.
	Path string
	// Message says what happened to it and, where there is one, what to do instead.
	Message string
}

func (w Warning) String() string {
	if w.Path == "" {
		return fmt.Sprintf("%s/%s: %s", w.Kind, w.Name, w.Message)
	}
	return fmt.Sprintf("%s/%s: %s %s", w.Kind, w.Name, w.Path, w.Message)
}

// Convert reads a YAML (or JSON) stream of Cilium and MetalLB objects, "---"
// separated, Lists expanded, and returns the equivalent kbgp objects with TypeMeta set,
// in apply order (advertisements and peer configs before what refers to them), and a
// warning for everything that was not carried over exactly. The error is for input
// that is not a stream of objects at all.
func Convert(input []byte) ([]Object, []Warning, error) {
	docs, err := decode(input)
	if err != nil {
		return nil, nil, err
	}
	c := &converter{}
	for i, doc := range docs {
		c.sources = append(c.sources, c.identify(doc, i+1))
	}
	c.index()
	for _, s := range c.sources {
		if convert := c.converterFor(s); convert != nil {
			convert(s)
		}
	}
	c.assembleMetalLB()
	c.assembleCilium()
	objs := c.output()
	var warnings []Warning
	for _, s := range c.sources {
		if c.converterFor(s) != nil {
			s.reportUnread()
		}
		warnings = append(warnings, s.warnings...)
	}
	return objs, warnings, nil
}

// converter holds the state of one Convert call: the sources, what was generated from
// which source, and the cross-object indexes some kinds need.
type converter struct {
	sources []*source
	out     []generated
	// ciliumInstances maps a CiliumBGPClusterConfig instance name to the local ASNs
	// it has in the input, for CiliumBGPNodeConfigOverride (cilium_v2.go).
	ciliumInstances map[string][]int64
	ciliumLB        ciliumLB
	metallb         metallb
}

// generated is an output object and the source it came from.
type generated struct {
	obj Object
	src *source
}

// identify reads the apiVersion, kind and name of a document.
func (c *converter) identify(doc map[string]any, n int) *source {
	s := newSource(doc)
	top := s.top()
	// Read raw, so that the warnings below already name the object.
	s.apiVersion, _ = doc["apiVersion"].(string)
	s.kind, _ = doc["kind"].(string)
	top.child("apiVersion").consume()
	top.child("kind").consume()
	if s.kind == "" {
		s.kind = "(no kind)"
	}
	md, _ := doc["metadata"].(map[string]any)
	s.name, _ = md["name"].(string)
	top.obj("metadata").child("name").consume()
	if s.name == "" {
		s.name = fmt.Sprintf("unnamed-%d", n)
		s.warn("metadata.name", "is missing: named %s", s.name)
	}
	return s
}

// group is the API group of an apiVersion ("" for the core group).
func group(apiVersion string) (grp, version string) {
	if g, v, found := strings.Cut(apiVersion, "/"); found {
		return g, v
	}
	return "", apiVersion
}

// converterFor picks the conversion of a source by API group, version and kind; nil
// for what is not converted (index reports those).
func (c *converter) converterFor(s *source) func(*source) {
	grp, version := group(s.apiVersion)
	switch {
	case grp == "cilium.io" && (version == "v2alpha1" || version == "v2"):
		switch s.kind {
		case "CiliumBGPPeeringPolicy":
			return c.ciliumPeeringPolicy
		case "CiliumBGPClusterConfig":
			return c.ciliumClusterConfig
		case "CiliumBGPPeerConfig":
			return c.ciliumPeerConfig
		case "CiliumBGPAdvertisement":
			return c.ciliumAdvertisement
		case "CiliumBGPNodeConfigOverride":
			return c.ciliumNodeConfigOverride
		case "CiliumLoadBalancerIPPool":
			return c.ciliumPool
		}
	case grp == "metallb.io" && (version == "v1beta1" || version == "v1beta2"):
		switch s.kind {
		case "BGPPeer":
			return c.metallbPeer
		case "BGPAdvertisement":
			return c.metallbAdvertisement
		case "IPAddressPool":
			return c.metallbPool
		case "Community", "BFDProfile":
			return c.skipMeta // read through references (indexMetalLB)
		}
	}
	return nil
}

// unsupported explains why a kind is not converted.
func unsupported(s *source) string {
	grp, _ := group(s.apiVersion)
	switch {
	case grp == kbgpv1.GroupVersion.Group:
		return "is already a kbgp object: skipped"
	case grp == "metallb.io" && s.kind == "L2Advertisement":
		return "MetalLB's layer 2 mode has no kbgp equivalent (kbgp announces over BGP only): skipped"
	case grp == "cilium.io" && s.kind == "CiliumBGPNodeConfig":
		return "is written by Cilium from the other kinds, convert those instead: skipped"
	case s.apiVersion == "":
		return "has no apiVersion: skipped"
	}
	return fmt.Sprintf("apiVersion %s kind %s is not converted: skipped", s.apiVersion, s.kind)
}

// index builds the cross-object indexes before any conversion, and reports the kinds
// that are not converted.
func (c *converter) index() {
	c.ciliumInstances = map[string][]int64{}
	for _, s := range c.sources {
		if c.converterFor(s) == nil {
			s.warn("", "%s", unsupported(s))
			continue
		}
		switch s.kind {
		case "CiliumBGPClusterConfig":
			c.indexCiliumInstances(s)
		case "Community", "BFDProfile":
			c.indexMetalLB(s)
		}
	}
}

// serverWritten are the metadata fields the API server writes: they describe a live
// object, not configuration, and are ignored without a warning.
var serverWritten = []string{"uid", "resourceVersion", "generation", "creationTimestamp", "managedFields", "selfLink", "deletionTimestamp", "deletionGracePeriodSeconds"}

// lastApplied is kubectl's copy of the applied object, which is not configuration of its own.
const lastApplied = "kubectl.kubernetes.io/last-applied-configuration"

// meta is the ObjectMeta of the kbgp object converted one to one from s: its name
// and labels. Annotations other than kubectl's are left for reportUnread.
func (c *converter) meta(s *source) metav1.ObjectMeta {
	md := readMeta(s)
	om := metav1.ObjectMeta{Name: s.name}
	labels := md.obj("labels")
	for _, e := range labels.entries() {
		if v, ok := e.asStr(); ok {
			if om.Labels == nil {
				om.Labels = map[string]string{}
			}
			om.Labels[e.key] = v
		}
	}
	return om
}

// skipMeta consumes the metadata of a source whose fields feed other objects (a
// MetalLB Community, BFDProfile) or that produced nothing: only the name matters.
func (c *converter) skipMeta(s *source) {
	readMeta(s).drop("labels", "are not carried over: this kind produces no kbgp object of its own")
}

// readMeta consumes what no kind carries over — the status, the fields the API server
// writes, the namespace, kubectl's last-applied annotation — and returns the metadata
// for the rest.
func readMeta(s *source) node {
	top := s.top()
	top.ignore("status")
	md := top.obj("metadata")
	for _, f := range serverWritten {
		md.ignore(f)
	}
	md.ignore("namespace")
	md.obj("annotations").ignore(lastApplied)
	return md
}

func typeMeta(kind string) metav1.TypeMeta {
	return metav1.TypeMeta{APIVersion: kbgpv1.GroupVersion.String(), Kind: kind}
}

// emit adds an output object generated from src.
func (c *converter) emit(src *source, obj Object) {
	c.out = append(c.out, generated{obj: obj, src: src})
}

// kindOrder is the order of kinds in the output: what is referred to before what
// refers to it, so that `kubectl apply -f` never creates a reference to an object
// that does not exist yet.
var kindOrder = []string{"LoadBalancerIPPool", "BGPAdvertisement", "BGPPeerConfig", "BGPClusterConfig", "BGPNodeConfigOverride", "BGPPeeringPolicy"}

// output orders the generated objects by kind, keeping the input order within a kind,
// and leaves out (with a warning) an object whose kind and name an earlier one took.
func (c *converter) output() []Object {
	slices.SortStableFunc(c.out, func(a, b generated) int {
		return slices.Index(kindOrder, kindOf(a.obj)) - slices.Index(kindOrder, kindOf(b.obj))
	})
	taken := map[string]*source{}
	var objs []Object
	for _, g := range c.out {
		key := kindOf(g.obj) + "/" + g.obj.GetName()
		if first, dup := taken[key]; dup {
			g.src.warn("", "would generate %s, which %s/%s generates too: skipped (rename one of them)", key, first.kind, first.name)
			continue
		}
		taken[key] = g.src
		objs = append(objs, g.obj)
	}
	return objs
}

func kindOf(o Object) string { return o.GetObjectKind().GroupVersionKind().Kind }
