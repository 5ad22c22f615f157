package nodebgp

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

func TestServiceInputs(t *testing.T) {
	svc := func(uid, rv string) *corev1.Service {
		return &corev1.Service{ObjectMeta: metav1.ObjectMeta{UID: types.UID(uid), ResourceVersion: rv}}
	}
	slice := func(name, rv string) discoveryv1.EndpointSlice {
		return discoveryv1.EndpointSlice{ObjectMeta: metav1.ObjectMeta{Name: name, ResourceVersion: rv}}
	}
	key := types.NamespacedName{Namespace: "shop", Name: "web"}
	recorded := inputVersion(svc("u1", "10"), []discoveryv1.EndpointSlice{slice("web-a", "5"), slice("web-b", "7")})
	for _, tc := range []struct {
		name      string
		version   string
		unchanged bool
	}{
		{"same objects", recorded, true},
		{"same objects, slices listed in another order", inputVersion(svc("u1", "10"), []discoveryv1.EndpointSlice{slice("web-b", "7"), slice("web-a", "5")}), true},
		{"Service updated", inputVersion(svc("u1", "11"), []discoveryv1.EndpointSlice{slice("web-a", "5"), slice("web-b", "7")}), false},
		{"Service re-created with the same version", inputVersion(svc("u2", "10"), []discoveryv1.EndpointSlice{slice("web-a", "5"), slice("web-b", "7")}), false},
		{"a slice updated", inputVersion(svc("u1", "10"), []discoveryv1.EndpointSlice{slice("web-a", "6"), slice("web-b", "7")}), false},
		{"a slice gone", inputVersion(svc("u1", "10"), []discoveryv1.EndpointSlice{slice("web-a", "5")}), false},
		{"Service deleted", inputVersion(nil, nil), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := serviceInputs{}
			in.record(key, recorded)
			if got := in.unchanged(key, tc.version); got != tc.unchanged {
				t.Errorf("unchanged = %v, want %v", got, tc.unchanged)
			}
		})
	}
	t.Run("nothing recorded", func(t *testing.T) {
		if (serviceInputs{}).unchanged(key, recorded) {
			t.Error("a Service never recorded reads as unchanged")
		}
	})
	t.Run("a deletion forgets", func(t *testing.T) {
		in := serviceInputs{}
		in.record(key, recorded)
		in.record(key, inputVersion(nil, nil))
		if in.unchanged(key, recorded) {
			t.Error("after the Service's deletion its old objects still read as unchanged")
		}
	})
}
