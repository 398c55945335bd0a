package main

import (
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"strings"
)

// restrictedGroup is the only group of the generated token users. Nothing is
// bound to it: the users have no permissions until a test binds a Role.
const restrictedGroup = "elector:restricted"

type user struct {
	Name   string   `json:"name"`
	UID    string   `json:"uid"`
	Groups []string `json:"groups"`
	Token  string   `json:"token"`
}

// ensureUsers returns the users in usersPath, generating n new ones when the
// file is missing or holds a different number. Keeping them across restarts
// lets a test reuse its tokens after simulating an outage.
func ensureUsers(usersPath, tokenCSVPath string, n int) ([]user, error) {
	var users []user
	if data, err := os.ReadFile(usersPath); err == nil {
		if json.Unmarshal(data, &users) != nil || len(users) != n {
			users = nil
		}
	}
	if users == nil {
		users = make([]user, 0, n)
		for i := 1; i <= n; i++ {
			users = append(users, user{
				Name:   fmt.Sprintf("restricted-%d", i),
				UID:    uuid(),
				Groups: []string{restrictedGroup},
				Token:  randomHex(32),
			})
		}
		data, err := json.MarshalIndent(users, "", "  ")
		if err != nil {
			return nil, err
		}
		if err := writeFileAtomic(usersPath, append(data, '\n'), 0o600); err != nil {
			return nil, err
		}
	}
	// kube-apiserver's static token file: token,user,uid,"group1,group2"
	var csv strings.Builder
	for _, u := range users {
		fmt.Fprintf(&csv, "%s,%s,%s,\"%s\"\n", u.Token, u.Name, u.UID, strings.Join(u.Groups, ","))
	}
	return users, writeFileAtomic(tokenCSVPath, []byte(csv.String()), 0o600)
}

// writeKubeconfig writes an admin kubeconfig with all material embedded, so it
// stays valid when copied elsewhere.
func writeKubeconfig(path, server string, p pki) error {
	b64 := func(file string) (string, error) {
		data, err := os.ReadFile(file)
		return base64.StdEncoding.EncodeToString(data), err
	}
	ca, err := b64(p.caCert())
	if err != nil {
		return err
	}
	cert, err := b64(p.adminCert())
	if err != nil {
		return err
	}
	key, err := b64(p.adminKey())
	if err != nil {
		return err
	}
	kubeconfig := fmt.Sprintf(`apiVersion: v1
kind: Config
clusters:
- name: elector
  cluster:
    server: %s
    certificate-authority-data: %s
users:
- name: elector-admin
  user:
    client-certificate-data: %s
    client-key-data: %s
contexts:
- name: elector
  context:
    cluster: elector
    user: elector-admin
current-context: elector
`, server, ca, cert, key)
	return writeFileAtomic(path, []byte(kubeconfig), 0o600)
}

func randomBytes(n int) []byte {
	b := make([]byte, n)
	rand.Read(b) // never fails (crypto/rand panics internally if it cannot read)
	return b
}

func randomHex(n int) string { return hex.EncodeToString(randomBytes(n)) }

// uuid returns a random (version 4) UUID.
func uuid() string {
	b := randomBytes(16)
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	h := hex.EncodeToString(b)
	return h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:32]
}
