package kcluster

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/hex"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"strings"
	"time"

	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// identity is one static-token user of the cluster: the control-plane components,
// each kubelet (system:node:NAME in system:nodes, so the Node authorizer and
// NodeRestriction apply as on any cluster) and the administrator.
type identity struct {
	user   string
	groups []string
}

// pki is the cluster's trust: a CA, the API server's serving certificate, the
// service-account signing key and a token per identity. Files live in dir.
type pki struct {
	dir    string
	caPEM  []byte
	tokens map[string]string // user → bearer token
}

func (p *pki) path(name string) string { return filepath.Join(p.dir, name) }

// newPKI writes ca.crt, apiserver.{crt,key}, sa.{key,pub} and tokens.csv into dir.
// The serving certificate is valid for the API server's addresses (ips) and the
// names pods use for the kubernetes Service.
func newPKI(dir string, ips []net.IP, ids []identity) (*pki, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	p := &pki{dir: dir, tokens: map[string]string{}}
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	now := time.Now()
	caTmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: "kbgp-cluster-ca"},
		NotBefore:             now.Add(-time.Hour),
		NotAfter:              now.Add(30 * 24 * time.Hour),
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		return nil, err
	}
	ca, err := x509.ParseCertificate(caDER)
	if err != nil {
		return nil, err
	}
	p.caPEM = pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: caDER})
	srvKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	srvTmpl := &x509.Certificate{
		SerialNumber: big.NewInt(2),
		Subject:      pkix.Name{CommonName: "kube-apiserver"},
		NotBefore:    now.Add(-time.Hour),
		NotAfter:     now.Add(30 * 24 * time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		IPAddresses:  ips,
		DNSNames: []string{"localhost", "kubernetes", "kubernetes.default", "kubernetes.default.svc",
			"kubernetes.default.svc.cluster.local"},
	}
	srvDER, err := x509.CreateCertificate(rand.Reader, srvTmpl, ca, &srvKey.PublicKey, caKey)
	if err != nil {
		return nil, err
	}
	srvKeyDER, err := x509.MarshalECPrivateKey(srvKey)
	if err != nil {
		return nil, err
	}
	saKey, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		return nil, err
	}
	saPub, err := x509.MarshalPKIXPublicKey(&saKey.PublicKey)
	if err != nil {
		return nil, err
	}
	var tokens strings.Builder
	for i, id := range ids {
		buf := make([]byte, 16)
		if _, err := rand.Read(buf); err != nil {
			return nil, err
		}
		tok := hex.EncodeToString(buf)
		p.tokens[id.user] = tok
		fmt.Fprintf(&tokens, "%s,%s,%d,\"%s\"\n", tok, id.user, i+1, strings.Join(id.groups, ","))
	}
	files := map[string][]byte{
		"ca.crt":        p.caPEM,
		"apiserver.crt": pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srvDER}),
		"apiserver.key": pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: srvKeyDER}),
		"sa.key":        pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(saKey)}),
		"sa.pub":        pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: saPub}),
		"tokens.csv":    []byte(tokens.String()),
	}
	for name, b := range files {
		if err := os.WriteFile(p.path(name), b, 0o600); err != nil {
			return nil, err
		}
	}
	return p, nil
}

// kubeconfig writes NAME.kubeconfig for user against server (https://host:port).
func (p *pki) kubeconfig(name, user, server string) (string, error) {
	tok, ok := p.tokens[user]
	if !ok {
		return "", fmt.Errorf("no token for %s", user)
	}
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters["kbgp-cluster"] = &clientcmdapi.Cluster{Server: server, CertificateAuthorityData: p.caPEM}
	cfg.AuthInfos[user] = &clientcmdapi.AuthInfo{Token: tok}
	cfg.Contexts["kbgp-cluster"] = &clientcmdapi.Context{Cluster: "kbgp-cluster", AuthInfo: user}
	cfg.CurrentContext = "kbgp-cluster"
	path := p.path(name + ".kubeconfig")
	return path, clientcmd.WriteToFile(*cfg, path)
}
