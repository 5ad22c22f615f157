package integration

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"sigs.k8s.io/controller-runtime/pkg/client"

	kbgpv1 "kbgp.io/kbgp/api/v1alpha1"
)

func nodeConfigWithStatus(name string) *kbgpv1.BGPNodeConfig {
	return &kbgpv1.BGPNodeConfig{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: kbgpv1.BGPNodeConfigSpec{BGPInstances: []kbgpv1.BGPNodeInstance{{
			BGPInstanceSettings: kbgpv1.BGPInstanceSettings{LocalASN: 65001},
		}}},
		Status: kbgpv1.BGPNodeConfigStatus{
			Conditions: []metav1.Condition{
				{Type: "Ready", Status: metav1.ConditionTrue, Reason: "ConfigurationSuccessful", LastTransitionTime: metav1.Now()},
				{Type: "Degraded", Status: metav1.ConditionFalse, Reason: "ConfigurationSuccessful", LastTransitionTime: metav1.Now()},
			},
			BGPInstances: []kbgpv1.BGPNodeInstanceStatus{{
				LocalASN: 65001, RouterID: "10.255.166.39", RouterIDSource: kbgpv1.RouterIDSourceHash, RouterIDNode: name,
				Peers: []kbgpv1.BGPNodePeerStatus{{Name: "tor-a", PeerAddress: "10.1.1.1", PeerASN: 65002, PeeringState: kbgpv1.PeeringStateEstablished}},
			}},
		},
	}
}

// TestNodeConfigStatusIsASubresource proves the spec writer (operator) and the status
// writer (agent) cannot overwrite each other's half.
func TestNodeConfigStatusIsASubresource(t *testing.T) {
	ctx := context.Background()
	nc := nodeConfigWithStatus("status-subresource")
	want := nc.Status.DeepCopy()
	if err := server.Client.Create(ctx, nc); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = server.Client.Delete(context.Background(), nc) })
	if len(nc.Status.BGPInstances) != 0 {
		t.Fatalf("create wrote status: %+v", nc.Status)
	}

	nc.Status = *want
	if err := server.Client.Status().Update(ctx, nc); err != nil {
		t.Fatalf("status update: %v", err)
	}
	nc.Spec.BGPInstances[0].LocalPort = ptr(int32(1790))
	nc.Status = kbgpv1.BGPNodeConfigStatus{}
	if err := server.Client.Update(ctx, nc); err != nil {
		t.Fatalf("spec update: %v", err)
	}

	var got kbgpv1.BGPNodeConfig
	if err := server.Client.Get(ctx, client.ObjectKeyFromObject(nc), &got); err != nil {
		t.Fatal(err)
	}
	if got.Spec.BGPInstances[0].LocalPort == nil {
		t.Error("spec update lost")
	}
	if diff := cmp.Diff(want.BGPInstances, got.Status.BGPInstances); diff != "" {
		t.Errorf("a spec update changed the status (-want +got):\n%s", diff)
	}
}

// TestPrinterColumns asks the API server for the table kubectl prints.
func TestPrinterColumns(t *testing.T) {
	ctx := context.Background()
	nc := nodeConfigWithStatus("printer-columns")
	status := nc.Status
	if err := server.Client.Create(ctx, nc); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = server.Client.Delete(context.Background(), nc) })
	nc.Status = status
	if err := server.Client.Status().Update(ctx, nc); err != nil {
		t.Fatal(err)
	}

	table := getTable(t, "/apis/kbgp.io/v1alpha1/bgpnodeconfigs/printer-columns")
	if diff := cmp.Diff([]string{"Name", "Router-ID", "Ready", "Degraded", "Age"}, columnNames(table)); diff != "" {
		t.Errorf("BGPNodeConfig columns (-want +got):\n%s", diff)
	}
	if len(table.Rows) != 1 {
		t.Fatalf("want 1 row, got %d", len(table.Rows))
	}
	if diff := cmp.Diff([]any{"printer-columns", "10.255.166.39", "True", "False"}, table.Rows[0].Cells[:4]); diff != "" {
		t.Errorf("BGPNodeConfig row (-want +got):\n%s", diff)
	}

	table = getTable(t, "/apis/kbgp.io/v1alpha1/bgpclusterconfigs")
	if diff := cmp.Diff([]string{"Name", "Ready", "Age"}, columnNames(table)); diff != "" {
		t.Errorf("BGPClusterConfig columns (-want +got):\n%s", diff)
	}
}

func getTable(t *testing.T, path string) *metav1.Table {
	t.Helper()
	cs, err := kubernetes.NewForConfig(server.Config)
	if err != nil {
		t.Fatal(err)
	}
	body, err := cs.CoreV1().RESTClient().Get().AbsPath(path).
		SetHeader("Accept", "application/json;as=Table;v=v1;g=meta.k8s.io").
		DoRaw(context.Background())
	if err != nil {
		t.Fatalf("GET %s: %v", path, err)
	}
	var table metav1.Table
	if err := json.Unmarshal(body, &table); err != nil {
		t.Fatalf("decode table: %v", err)
	}
	return &table
}

func columnNames(t *metav1.Table) []string {
	var names []string
	for _, c := range t.ColumnDefinitions {
		names = append(names, c.Name)
	}
	return names
}
