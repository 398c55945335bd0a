package main

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"time"
)

// pki holds the paths of the key material in <data-dir>/pki. Files that already
// exist are reused, so a restarted control plane keeps its CA and identities.
type pki struct {
	dir string
}

func (p pki) path(name string) string { return filepath.Join(p.dir, name) }

func (p pki) caCert() string     { return p.path("ca.crt") }
func (p pki) serverCert() string { return p.path("server.crt") }
func (p pki) serverKey() string  { return p.path("server.key") }
func (p pki) adminCert() string  { return p.path("admin.crt") }
func (p pki) adminKey() string   { return p.path("admin.key") }
func (p pki) saKey() string      { return p.path("service-account.key") }

// Ten years: a kept data dir must not expire between test runs.
const certValidity = 10 * 365 * 24 * time.Hour

// ensure creates whatever is missing. Keys are RSA 2048 in PKCS#1 PEM
// ("RSA PRIVATE KEY"), which every client we care about can parse.
func (p pki) ensure() error {
	if err := os.MkdirAll(p.dir, 0o700); err != nil {
		return err
	}
	ca, caKey, err := p.loadOrCreateCA()
	if err != nil {
		return fmt.Errorf("CA: %w", err)
	}
	server := &x509.Certificate{
		Subject:     pkix.Name{CommonName: "elector-apiserver"},
		DNSNames:    []string{"localhost"},
		IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)},
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	if err := p.ensureLeaf(p.serverCert(), p.serverKey(), server, ca, caKey); err != nil {
		return fmt.Errorf("serving certificate: %w", err)
	}
	admin := &x509.Certificate{
		Subject:     pkix.Name{CommonName: "elector-admin", Organization: []string{"system:masters"}},
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
	}
	if err := p.ensureLeaf(p.adminCert(), p.adminKey(), admin, ca, caKey); err != nil {
		return fmt.Errorf("admin client certificate: %w", err)
	}
	if !exists(p.saKey()) {
		key, err := rsa.GenerateKey(rand.Reader, 2048)
		if err != nil {
			return err
		}
		if err := writePEM(p.saKey(), "RSA PRIVATE KEY", x509.MarshalPKCS1PrivateKey(key)); err != nil {
			return fmt.Errorf("service-account key: %w", err)
		}
	}
	return nil
}

func (p pki) loadOrCreateCA() (*x509.Certificate, *rsa.PrivateKey, error) {
	caKeyPath := p.path("ca.key")
	if exists(p.caCert()) && exists(caKeyPath) {
		certDER, err := readPEM(p.caCert(), "CERTIFICATE")
		if err != nil {
			return nil, nil, err
		}
		cert, err := x509.ParseCertificate(certDER)
		if err != nil {
			return nil, nil, err
		}
		keyDER, err := readPEM(caKeyPath, "RSA PRIVATE KEY")
		if err != nil {
			return nil, nil, err
		}
		key, err := x509.ParsePKCS1PrivateKey(keyDER)
		return cert, key, err
	}
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		return nil, nil, err
	}
	tmpl := &x509.Certificate{
		Subject:               pkix.Name{CommonName: "elector-apiserver-ca"},
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageCRLSign | x509.KeyUsageDigitalSignature,
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	der, err := sign(tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return nil, nil, err
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, nil, err
	}
	if err := writePEM(caKeyPath, "RSA PRIVATE KEY", x509.MarshalPKCS1PrivateKey(key)); err != nil {
		return nil, nil, err
	}
	return cert, key, writePEM(p.caCert(), "CERTIFICATE", der)
}

func (p pki) ensureLeaf(certPath, keyPath string, tmpl, ca *x509.Certificate, caKey *rsa.PrivateKey) error {
	if exists(certPath) && exists(keyPath) {
		return nil
	}
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		return err
	}
	tmpl.KeyUsage = x509.KeyUsageDigitalSignature | x509.KeyUsageKeyEncipherment
	der, err := sign(tmpl, ca, &key.PublicKey, caKey)
	if err != nil {
		return err
	}
	if err := writePEM(keyPath, "RSA PRIVATE KEY", x509.MarshalPKCS1PrivateKey(key)); err != nil {
		return err
	}
	return writePEM(certPath, "CERTIFICATE", der)
}

func sign(tmpl, parent *x509.Certificate, pub *rsa.PublicKey, signer *rsa.PrivateKey) ([]byte, error) {
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 62))
	if err != nil {
		return nil, err
	}
	tmpl.SerialNumber = serial
	// Backdated a little so a slightly skewed clock does not reject a fresh certificate.
	tmpl.NotBefore = time.Now().Add(-time.Hour)
	tmpl.NotAfter = tmpl.NotBefore.Add(certValidity)
	return x509.CreateCertificate(rand.Reader, tmpl, parent, pub, signer)
}

func writePEM(path, kind string, der []byte) error {
	return writeFileAtomic(path, pem.EncodeToMemory(&pem.Block{Type: kind, Bytes: der}), 0o600)
}

func readPEM(path, kind string) ([]byte, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	block, _ := pem.Decode(data)
	if block == nil || block.Type != kind {
		return nil, fmt.Errorf("%s: expected one PEM block of type %q", path, kind)
	}
	return block.Bytes, nil
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return !errors.Is(err, os.ErrNotExist)
}

// writeFileAtomic writes via a temp file and rename, so a crash never leaves a
// half-written key or kubeconfig for the next start (or a reader) to trip over.
func writeFileAtomic(path string, data []byte, perm os.FileMode) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(perm); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
