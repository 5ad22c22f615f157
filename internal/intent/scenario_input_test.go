package intent_test

import (
	"fmt"
	"net/netip"
	"regexp"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/yaml"

	kbgpv1 "kbgp.io/kbgp/api/v1alpha1"
	"kbgp.io/kbgp/internal/intent"
	"kbgp.io/kbgp/internal/routerid"
)

// docSeparator splits a YAML stream into documents.
var docSeparator = regexp.MustCompile(`(?m)^---\s*$`)

// scenarioInput decodes a YAML stream of Kubernetes objects into Build's input, the
// way the agent would hand them over: one Node and one BGPNodeConfig, everything else
// listed or indexed by name. Router IDs are decided from the node as the agent does
// at first start (no locks).
func scenarioInput(stream []byte) (intent.Input, error) {
	in := intent.Input{
		PeerConfigs:    map[string]*kbgpv1.BGPPeerConfig{},
		Secrets:        map[string]*corev1.Secret{},
		EndpointSlices: map[types.NamespacedName][]discoveryv1.EndpointSlice{},
	}
	for i, doc := range docSeparator.Split(string(stream), -1) {
		if err := addObject(&in, []byte(doc)); err != nil {
			return in, fmt.Errorf("document %d: %w", i+1, err)
		}
	}
	if in.NodeConfig == nil || in.Node == nil {
		return in, fmt.Errorf("a scenario needs a Node and a BGPNodeConfig")
	}
	in.RouterIDs = map[int64]netip.Addr{}
	decided := routerid.Decide(routerid.DecideInput{Instances: in.NodeConfig.Spec.BGPInstances, NodeName: in.Node.Name, Node: in.Node})
	for asn, d := range decided {
		if d.Err == nil {
			in.RouterIDs[asn] = d.Lock.RouterID
		}
	}
	return in, nil
}

// addObject decodes one YAML document by its kind (strictly: a misspelt field fails
// the scenario rather than being ignored) and files it in the input.
func addObject(in *intent.Input, doc []byte) error {
	var meta metav1.TypeMeta
	if err := yaml.Unmarshal(doc, &meta); err != nil {
		return err
	}
	switch meta.Kind {
	case "":
		return nil // an empty document, e.g. before the first separator
	case "Node":
		in.Node = &corev1.Node{}
		return yaml.UnmarshalStrict(doc, in.Node)
	case "BGPNodeConfig":
		in.NodeConfig = &kbgpv1.BGPNodeConfig{}
		return yaml.UnmarshalStrict(doc, in.NodeConfig)
	case "BGPPeerConfig":
		pc := &kbgpv1.BGPPeerConfig{}
		err := yaml.UnmarshalStrict(doc, pc)
		in.PeerConfigs[pc.Name] = pc
		return err
	case "Secret":
		s := &corev1.Secret{}
		err := yaml.UnmarshalStrict(doc, s)
		in.Secrets[s.Name] = s
		return err
	case "BGPAdvertisement":
		return appendDecoded(doc, &in.Advertisements)
	case "LoadBalancerIPPool":
		return appendDecoded(doc, &in.LoadBalancerIPPools)
	case "Service":
		return appendDecoded(doc, &in.Services)
	case "EndpointSlice":
		var es discoveryv1.EndpointSlice
		if err := yaml.UnmarshalStrict(doc, &es); err != nil {
			return err
		}
		svc := types.NamespacedName{Namespace: es.Namespace, Name: es.Labels[discoveryv1.LabelServiceName]}
		in.EndpointSlices[svc] = append(in.EndpointSlices[svc], es)
		return nil
	}
	return fmt.Errorf("kind %q is not an input of Build", meta.Kind)
}

func appendDecoded[T any](doc []byte, list *[]T) error {
	var v T
	if err := yaml.UnmarshalStrict(doc, &v); err != nil {
		return err
	}
	*list = append(*list, v)
	return nil
}
