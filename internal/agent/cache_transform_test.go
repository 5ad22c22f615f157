package agent

import (
	"fmt"
	"net/netip"
	"runtime"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	toolscache "k8s.io/client-go/tools/cache"
	"k8s.io/utils/ptr"

	kbgpv1 "kbgp.io/kbgp/api/v1alpha1"
	"kbgp.io/kbgp/internal/bgp"
	"kbgp.io/kbgp/internal/intent"
)

// richService is a Service as the API server serves it after `kubectl apply`: every
// field set that a tenant may set, managedFields and kubectl's last-applied copy.
func richService(i int) *corev1.Service {
	name := fmt.Sprintf("web-%04d", i)
	clusterIP := netip.AddrFrom4([4]byte{10, 96, byte(i / 250), byte(i % 250)}).String()
	return &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "shop", UID: types.UID(fmt.Sprintf("uid-%d", i)), ResourceVersion: "42",
			CreationTimestamp: metav1.Unix(int64(1000+i), 0),
			Labels:            map[string]string{"app": name, "advertise": "bgp"},
			Annotations: map[string]string{
				"kubectl.kubernetes.io/last-applied-configuration": fmt.Sprintf(`{"apiVersion":"v1","kind":"Service","metadata":{"annotations":{},"labels":{"app":"%s","advertise":"bgp"},"name":"%s","namespace":"shop"},"spec":{"externalIPs":["198.51.100.%d"],"ports":[{"name":"http","port":80,"targetPort":8080},{"name":"https","port":443,"targetPort":8443}],"selector":{"app":"%s"},"type":"LoadBalancer"}}`, name, name, i%250, name),
				"kbgp.io/sharing-key":                              "shared"},
			ManagedFields: []metav1.ManagedFieldsEntry{{Manager: "kubectl-client-side-apply", Operation: metav1.ManagedFieldsOperationUpdate, APIVersion: "v1",
				FieldsType: "FieldsV1", FieldsV1: &metav1.FieldsV1{Raw: []byte(`{"f:metadata":{"f:annotations":{".":{},"f:kubectl.kubernetes.io/last-applied-configuration":{}},"f:labels":{".":{},"f:app":{},"f:advertise":{}}},"f:spec":{"f:externalIPs":{},"f:externalTrafficPolicy":{},"f:internalTrafficPolicy":{},"f:ports":{".":{},"k:{\"port\":80,\"protocol\":\"TCP\"}":{".":{},"f:name":{},"f:port":{},"f:protocol":{},"f:targetPort":{}},"k:{\"port\":443,\"protocol\":\"TCP\"}":{".":{},"f:name":{},"f:port":{},"f:protocol":{},"f:targetPort":{}}},"f:selector":{},"f:sessionAffinity":{},"f:type":{}}}`)}}},
		},
		Spec: corev1.ServiceSpec{
			Type: corev1.ServiceTypeLoadBalancer, ClusterIP: clusterIP, ClusterIPs: []string{clusterIP},
			IPFamilies: []corev1.IPFamily{corev1.IPv4Protocol}, IPFamilyPolicy: ptr.To(corev1.IPFamilyPolicySingleStack),
			ExternalIPs: []string{fmt.Sprintf("198.51.100.%d", i%250)}, Selector: map[string]string{"app": name},
			Ports: []corev1.ServicePort{
				{Name: "http", Protocol: corev1.ProtocolTCP, Port: 80, TargetPort: intstr.FromInt32(8080), NodePort: 30080},
				{Name: "https", Protocol: corev1.ProtocolTCP, Port: 443, TargetPort: intstr.FromInt32(8443), NodePort: 30443},
			},
			SessionAffinity: corev1.ServiceAffinityNone, ExternalTrafficPolicy: corev1.ServiceExternalTrafficPolicyLocal,
			InternalTrafficPolicy: ptr.To(corev1.ServiceInternalTrafficPolicyCluster), AllocateLoadBalancerNodePorts: ptr.To(true),
			HealthCheckNodePort: 31000, LoadBalancerClass: ptr.To(kbgpv1.LoadBalancerClass),
		},
		Status: corev1.ServiceStatus{LoadBalancer: corev1.LoadBalancerStatus{Ingress: []corev1.LoadBalancerIngress{{
			IP: fmt.Sprintf("203.0.113.%d", i%250), IPMode: ptr.To(corev1.LoadBalancerIPModeVIP),
			Ports: []corev1.PortStatus{{Port: 80, Protocol: corev1.ProtocolTCP}, {Port: 443, Protocol: corev1.ProtocolTCP}}}}}},
	}
}

// richSlice is an EndpointSlice of the Service with n endpoints, two thirds of them on
// worker-1, as the EndpointSlice controller writes it.
func richSlice(i, n int) *discoveryv1.EndpointSlice {
	name := fmt.Sprintf("web-%04d", i)
	s := &discoveryv1.EndpointSlice{
		ObjectMeta: metav1.ObjectMeta{Name: name + "-abcde", Namespace: "shop", UID: types.UID("slice-" + name), ResourceVersion: "43",
			Labels:          map[string]string{discoveryv1.LabelServiceName: name, discoveryv1.LabelManagedBy: "endpointslice-controller.k8s.io", "app": name},
			Annotations:     map[string]string{"endpoints.kubernetes.io/last-change-trigger-time": "2026-11-27T03:00:00Z"},
			OwnerReferences: []metav1.OwnerReference{{APIVersion: "v1", Kind: "Service", Name: name, UID: types.UID(fmt.Sprintf("uid-%d", i)), Controller: ptr.To(true), BlockOwnerDeletion: ptr.To(true)}},
			ManagedFields:   []metav1.ManagedFieldsEntry{{Manager: "kube-controller-manager", Operation: metav1.ManagedFieldsOperationUpdate, FieldsType: "FieldsV1", FieldsV1: &metav1.FieldsV1{Raw: []byte(`{"f:addressType":{},"f:endpoints":{},"f:metadata":{"f:labels":{}},"f:ports":{}}`)}}},
		},
		AddressType: discoveryv1.AddressTypeIPv4,
		Ports:       []discoveryv1.EndpointPort{{Name: ptr.To("http"), Port: ptr.To[int32](8080), Protocol: ptr.To(corev1.ProtocolTCP)}},
	}
	for j := range n {
		node := []string{"worker-1", "worker-1", "worker-2"}[j%3]
		s.Endpoints = append(s.Endpoints, discoveryv1.Endpoint{
			Addresses:  []string{netip.AddrFrom4([4]byte{10, 244, byte(j / 250), byte(j % 250)}).String()},
			Conditions: discoveryv1.EndpointConditions{Ready: ptr.To(j%4 != 0), Serving: ptr.To(true), Terminating: ptr.To(false)},
			Hostname:   ptr.To(fmt.Sprintf("%s-%d", name, j)), NodeName: ptr.To(node), Zone: ptr.To("zone-a"),
			TargetRef: &corev1.ObjectReference{Kind: "Pod", Namespace: "shop", Name: fmt.Sprintf("%s-7d9f8c6b5-%05d", name, j), UID: types.UID(fmt.Sprintf("pod-%d-%d", i, j))},
			Hints:     &discoveryv1.EndpointHints{ForZones: []discoveryv1.ForZone{{Name: "zone-a"}}},
		})
	}
	return s
}

// TestStripKeepsWhatIntentReads: what the node announces and refuses for a Service
// and its EndpointSlice is the same whether intent reads them whole or as the cache
// keeps them.
func TestStripKeepsWhatIntentReads(t *testing.T) {
	in := func(svcs []corev1.Service, slices []discoveryv1.EndpointSlice) intent.Input {
		eps := map[types.NamespacedName][]discoveryv1.EndpointSlice{}
		for _, s := range slices {
			k, _ := intent.EndpointSliceService(&s)
			eps[k] = append(eps[k], s)
		}
		ranges := []kbgpv1.CIDR{"198.51.100.0/25", "203.0.113.0/24"}
		return intent.Input{
			NodeConfig: &kbgpv1.BGPNodeConfig{ObjectMeta: metav1.ObjectMeta{Name: "worker-1"}, Spec: kbgpv1.BGPNodeConfigSpec{BGPInstances: []kbgpv1.BGPNodeInstance{{
				BGPInstanceSettings: kbgpv1.BGPInstanceSettings{LocalASN: 65001},
				Peers:               []kbgpv1.BGPNodePeer{{BGPPeer: kbgpv1.BGPPeer{Name: "tor", PeerAddress: "10.1.1.1", PeerASN: 65002, PeerConfigRef: &kbgpv1.PeerConfigReference{Name: "tor"}}}},
			}}}},
			PeerConfigs: map[string]*kbgpv1.BGPPeerConfig{"tor": {ObjectMeta: metav1.ObjectMeta{Name: "tor"}, Spec: kbgpv1.BGPPeerConfigSpec{Families: []kbgpv1.BGPFamily{{AFI: kbgpv1.AFIIPv4, SAFI: kbgpv1.SAFIUnicast,
				Advertisements: &kbgpv1.LabelSelector{MatchLabels: map[string]kbgpv1.LabelValue{"advertise": "bgp"}}}}}}},
			Advertisements: []kbgpv1.BGPAdvertisement{{ObjectMeta: metav1.ObjectMeta{Name: "all", Labels: map[string]string{"advertise": "bgp"}},
				Spec: kbgpv1.BGPAdvertisementSpec{Advertisements: []kbgpv1.Advertisement{{AdvertisementType: kbgpv1.AdvertisementService,
					Selector: &kbgpv1.LabelSelector{MatchLabels: map[string]kbgpv1.LabelValue{"advertise": "bgp"}},
					Service: &kbgpv1.ServiceAdvertisement{Addresses: []kbgpv1.ServiceAddressType{kbgpv1.ServiceClusterIP, kbgpv1.ServiceExternalIP, kbgpv1.ServiceLoadBalancerIP},
						ExternalIPPrefixes: ranges, LoadBalancerIPPrefixes: ranges}}}}}},
			Node:     &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "worker-1"}, Status: corev1.NodeStatus{Addresses: []corev1.NodeAddress{{Type: corev1.NodeInternalIP, Address: "10.0.0.10"}}}},
			Services: svcs, EndpointSlices: eps, RouterIDs: map[int64]netip.Addr{65001: netip.MustParseAddr("10.9.9.9")},
		}
	}
	var whole, stripped []corev1.Service
	var wholeSlices, strippedSlices []discoveryv1.EndpointSlice
	for i := range 300 {
		svc := richService(i)
		// Half without a ready endpoint on this node: externalTrafficPolicy Local
		// keeps their external addresses off it.
		slice := richSlice(i, 3*(i%2)+1)
		switch i % 4 {
		case 0, 2:
			slice.Endpoints[0].NodeName = ptr.To("worker-2")
		case 1: // endpoints here, none ready
			for j := range slice.Endpoints {
				slice.Endpoints[j].Conditions.Ready = ptr.To(false)
			}
		}
		whole, wholeSlices = append(whole, *svc), append(wholeSlices, *slice)
		s, _ := stripService(svc.DeepCopy())
		e, _ := stripEndpointSlice(slice.DeepCopy())
		stripped, strippedSlices = append(stripped, *s.(*corev1.Service)), append(strippedSlices, *e.(*discoveryv1.EndpointSlice))
	}
	want, got := intent.Build(in(whole, wholeSlices)), intent.Build(in(stripped, strippedSlices))
	if n := len(want.Desired.Instances[bgp.InstanceKey{LocalASN: 65001}].Peers["tor"].Export); n < 400 || len(want.Exports.Refused()) == 0 {
		t.Fatalf("the test's input announces %d prefixes and refuses %d Services", n, len(want.Exports.Refused()))
	}
	if diff := cmp.Diff(want.Desired, got.Desired, cmpopts.EquateComparable(netip.Addr{}, netip.Prefix{})); diff != "" {
		t.Errorf("announced (-whole +stripped):\n%s", diff)
	}
	if diff := cmp.Diff(want.Exports.Refused(), got.Exports.Refused()); diff != "" {
		t.Errorf("refused (-whole +stripped):\n%s", diff)
	}
}

// TestStripShrinksTheCaches: the review's fifth claim, agent caches. The heap that
// 2,000 Services, and 2,000 EndpointSlices of 30 endpoints, retain as the cache keeps
// them, whole (as before this change: managedFields and the last-applied copy
// stripped) and as stripped now.
func TestStripShrinksTheCaches(t *testing.T) {
	const n = 2000
	retained := func(build func(i int) any) uint64 { return retainedPerObject(n, build) }
	oldService := func(obj any) any {
		obj, _ = stripManagedFields(obj)
		delete(obj.(*corev1.Service).Annotations, "kubectl.kubernetes.io/last-applied-configuration")
		return obj
	}
	for _, tc := range []struct {
		kind          string
		old, now      func(i int) any
		atMostPercent uint64
	}{
		{"Service", func(i int) any { return oldService(richService(i)) }, func(i int) any { o, _ := stripService(richService(i)); return o }, 60},
		{"EndpointSlice", func(i int) any { o, _ := stripManagedFields(richSlice(i, 30)); return o }, func(i int) any { o, _ := stripEndpointSlice(richSlice(i, 30)); return o }, 40},
	} {
		old, now := retained(tc.old), retained(tc.now)
		t.Logf("%s: %d bytes retained per object before, %d now (%d%%)", tc.kind, old, now, 100*now/old)
		if now*100 > old*tc.atMostPercent {
			t.Errorf("%s: %d bytes retained per object, more than %d%% of the %d before", tc.kind, now, tc.atMostPercent, old)
		}
	}
}

// TestCacheOptionsStripTheCaches: the manager's cache options apply the transforms to
// Services and EndpointSlices and strip managedFields from every other object.
func TestCacheOptionsStripTheCaches(t *testing.T) {
	opts := cacheOptions("n1")
	var serviceTransform, sliceTransform toolscache.TransformFunc
	for obj, by := range opts.ByObject {
		switch obj.(type) {
		case *corev1.Service:
			serviceTransform = by.Transform
		case *discoveryv1.EndpointSlice:
			sliceTransform = by.Transform
		}
	}
	if serviceTransform == nil || sliceTransform == nil || opts.DefaultTransform == nil {
		t.Fatalf("cache options without the transforms: Service %v, EndpointSlice %v, default %v", serviceTransform != nil, sliceTransform != nil, opts.DefaultTransform != nil)
	}
	svc, err := serviceTransform(richService(1))
	if err != nil || svc.(*corev1.Service).Annotations != nil || svc.(*corev1.Service).Spec.Ports != nil {
		t.Fatalf("the Services' transform kept annotations or ports: %v", err)
	}
	slice, err := sliceTransform(richSlice(1, 2))
	if err != nil || slice.(*discoveryv1.EndpointSlice).Endpoints[0].Addresses != nil {
		t.Fatalf("the EndpointSlices' transform kept the addresses: %v", err)
	}
	node, err := opts.DefaultTransform(&corev1.Node{ObjectMeta: metav1.ObjectMeta{ManagedFields: []metav1.ManagedFieldsEntry{{Manager: "kubelet"}}}})
	if err != nil || node.(*corev1.Node).ManagedFields != nil {
		t.Fatalf("the default transform kept managedFields: %v", err)
	}
	tomb := toolscache.DeletedFinalStateUnknown{Key: "shop/web"}
	if out, err := serviceTransform(tomb); err != nil || out != tomb {
		t.Fatalf("a tombstone: %v, %v", out, err)
	}
}

// richNode is a Node as a kubelet writes it: labels, annotations, conditions, capacity,
// node info, 30 images and managedFields.
func richNode(i int) *corev1.Node {
	name := fmt.Sprintf("worker-%04d", i)
	ip := netip.AddrFrom4([4]byte{10, 0, byte(i / 250), byte(i % 250)}).String()
	n := &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: name, UID: types.UID("node-" + name), ResourceVersion: "44",
			Labels: map[string]string{"kubernetes.io/hostname": name, "kubernetes.io/os": "linux", "kubernetes.io/arch": "amd64",
				"node.kubernetes.io/instance-type": "m5.xlarge", "topology.kubernetes.io/zone": "zone-a", "topology.kubernetes.io/region": "region-1"},
			Annotations: map[string]string{"node.alpha.kubernetes.io/ttl": "0", "volumes.kubernetes.io/controller-managed-attach-detach": "true"},
			ManagedFields: []metav1.ManagedFieldsEntry{{Manager: "kubelet", Operation: metav1.ManagedFieldsOperationUpdate, APIVersion: "v1", FieldsType: "FieldsV1",
				FieldsV1: &metav1.FieldsV1{Raw: []byte(`{"f:status":{"f:conditions":{"k:{\"type\":\"DiskPressure\"}":{"f:lastHeartbeatTime":{}},"k:{\"type\":\"MemoryPressure\"}":{"f:lastHeartbeatTime":{}},"k:{\"type\":\"PIDPressure\"}":{"f:lastHeartbeatTime":{}},"k:{\"type\":\"Ready\"}":{"f:lastHeartbeatTime":{}}},"f:images":{},"f:nodeInfo":{}}}`)}}},
		},
		Spec: corev1.NodeSpec{PodCIDR: fmt.Sprintf("10.244.%d.0/24", i%250), PodCIDRs: []string{fmt.Sprintf("10.244.%d.0/24", i%250)}, ProviderID: "aws:///zone-a/i-0123456789abcdef0"},
		Status: corev1.NodeStatus{
			Addresses: []corev1.NodeAddress{{Type: corev1.NodeInternalIP, Address: ip}, {Type: corev1.NodeHostName, Address: name}},
			NodeInfo: corev1.NodeSystemInfo{MachineID: "0123456789abcdef0123456789abcdef", SystemUUID: "ec2a0000-0000-0000-0000-000000000000", BootID: "b0075e1d-0000-0000-0000-000000000000",
				KernelVersion: "6.8.0-1019-aws", OSImage: "Ubuntu 24.04.1 LTS", ContainerRuntimeVersion: "containerd://1.7.22", KubeletVersion: "v1.34.4", OperatingSystem: "linux", Architecture: "amd64"},
		},
	}
	for _, c := range []corev1.NodeConditionType{corev1.NodeMemoryPressure, corev1.NodeDiskPressure, corev1.NodePIDPressure, corev1.NodeReady} {
		n.Status.Conditions = append(n.Status.Conditions, corev1.NodeCondition{Type: c, Status: corev1.ConditionFalse, Reason: "KubeletHasSufficient" + string(c), Message: "kubelet has sufficient " + string(c)})
	}
	for j := range 30 {
		n.Status.Images = append(n.Status.Images, corev1.ContainerImage{SizeBytes: int64(1e7 * j),
			Names: []string{fmt.Sprintf("registry.example.com/team/app-%02d@sha256:%064d", j, j), fmt.Sprintf("registry.example.com/team/app-%02d:v1.%d.0", j, j)}})
	}
	return n
}

// TestNodeCacheKeepsOwnWholeAndOthersTrimmed: the agent's Node cache holds every Node;
// its own whole (but for managedFields), the others with their addresses and pod CIDRs
// alone, which is all intent.NodeReservations reads. The retained heap per other Node
// is logged and bounded (docs/security.md states the cost).
func TestNodeCacheKeepsOwnWholeAndOthersTrimmed(t *testing.T) {
	var transform toolscache.TransformFunc
	for obj, by := range cacheOptions("worker-0001").ByObject {
		if _, ok := obj.(*corev1.Node); ok {
			transform = by.Transform
		}
	}
	if transform == nil {
		t.Fatal("no Node transform")
	}
	own, _ := transform(richNode(1))
	if n := own.(*corev1.Node); n.ManagedFields != nil || len(n.Status.Conditions) != 4 || n.Labels == nil {
		t.Errorf("the own Node is not kept whole: %+v", n.ObjectMeta)
	}
	other, _ := transform(richNode(2))
	if diff := cmp.Diff(intent.NodeReservations(richNode(2)), intent.NodeReservations(other.(*corev1.Node)), cmpopts.EquateComparable(netip.Prefix{})); diff != "" {
		t.Errorf("reservations of a trimmed Node (-whole +trimmed):\n%s", diff)
	}
	if n := other.(*corev1.Node); n.Labels != nil || n.Status.Images != nil || n.Status.Conditions != nil {
		t.Errorf("another Node kept more than its addresses and pod CIDRs: %+v", n)
	}
	const n = 2000
	retained := func(build func(i int) any) uint64 { return retainedPerObject(n, build) }
	whole := retained(func(i int) any { o, _ := stripManagedFields(richNode(i + 10)); return o })
	trimmed := retained(func(i int) any { o, _ := transform(richNode(i + 10)); return o })
	t.Logf("Node: %d bytes retained per Node whole (without managedFields), %d trimmed (%d%%)", whole, trimmed, 100*trimmed/whole)
	if trimmed > 1024 {
		t.Errorf("a trimmed Node retains %d bytes, more than 1 KiB", trimmed)
	}
}

// retainedPerObject is the heap n objects that build makes keep alive, per object.
func retainedPerObject(n int, build func(i int) any) uint64 {
	objs := make([]any, n)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	for i := range objs {
		objs[i] = build(i)
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	runtime.KeepAlive(objs)
	return (after.HeapAlloc - before.HeapAlloc) / uint64(n)
}
