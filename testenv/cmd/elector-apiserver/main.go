// Command elector-apiserver runs a local Kubernetes control plane for tests:
// an embedded etcd and the real kube-apiserver, in one process, on loopback.
//
// When the API server is ready it prints exactly one line on stdout,
//
//	ELECTOR-APISERVER-READY {"server":...,"kubeconfig":...,...}
//
// and nothing else, ever; all logs go to --log-file. See README.md.
package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"
	genericapiserver "k8s.io/apiserver/pkg/server"
	"k8s.io/component-base/version"
	"k8s.io/klog/v2"
	"k8s.io/kubernetes/cmd/kube-apiserver/app"
)

const (
	readyPrefix = "ELECTOR-APISERVER-READY"
	// markerFile marks a data dir as ours: only such a dir is ever deleted or
	// reused, and it is flock'ed so two instances cannot share one.
	markerFile  = ".elector-apiserver"
	saIssuer    = "https://kubernetes.default.svc"
	stopTimeout = time.Minute
)

type options struct {
	dataDir        string
	keepData       bool
	port           int
	logFile        string
	users          int
	exitOnStdinEOF bool
	readyTimeout   time.Duration
	// etcdOnly runs the embedded etcd alone, for several API servers to share.
	etcdOnly bool
	// etcdPort is the client port of the embedded etcd; 0 picks a free one.
	etcdPort int
	// etcdServers, when set, is an etcd of another process: no embedded etcd starts.
	etcdServers string
	// apiserverArgs are extra kube-apiserver flags, appended after ours.
	apiserverArgs stringList
}

// stringList is a repeatable string flag.
type stringList []string

func (l *stringList) String() string { return strings.Join(*l, " ") }

func (l *stringList) Set(v string) error {
	if !strings.HasPrefix(v, "--") || !strings.Contains(v, "=") {
		return fmt.Errorf("%q is not of the form --flag=value; pass one kube-apiserver flag per --apiserver-arg, e.g. --apiserver-arg=--goaway-chance=0.02", v)
	}
	*l = append(*l, v)
	return nil
}

type readyLine struct {
	Server      string `json:"server"`
	Kubeconfig  string `json:"kubeconfig"`
	Users       string `json:"users"`
	DataDir     string `json:"dataDir"`
	Version     string `json:"version"`
	Etcd        string `json:"etcd,omitempty"`
	PID         int    `json:"pid"`
	StartMillis int64  `json:"startMillis"`
}

// errOut is where our own one-line errors go. Once fd 2 is redirected to the
// log file it is a duplicate of the original stderr.
var errOut = os.Stderr

// failure is a start-up error with the remedy the user should try.
type failure struct {
	what string
	err  error
	fix  string
}

func (f *failure) Error() string {
	msg := "elector-apiserver: " + f.what
	if f.err != nil {
		msg += ": " + f.err.Error()
	}
	if f.fix != "" {
		msg += "; " + f.fix
	}
	return msg
}

func fail(what string, err error, fix string) error { return &failure{what, err, fix} }

func main() {
	opts := parseFlags()
	if err := run(opts); err != nil {
		fmt.Fprintln(errOut, err.Error())
		os.Exit(1)
	}
}

func parseFlags() options {
	var o options
	fs := flag.NewFlagSet("elector-apiserver", flag.ExitOnError)
	fs.StringVar(&o.dataDir, "data-dir", "", "data directory (etcd data, pki, kubeconfig, users); default: a new temp dir")
	fs.BoolVar(&o.keepData, "keep-data", false, "keep the data dir on exit (default: delete it)")
	fs.IntVar(&o.port, "port", 0, "secure port on 127.0.0.1; 0 picks a free port")
	fs.StringVar(&o.logFile, "log-file", "", "file for kube-apiserver and etcd logs (default <data-dir>/apiserver.log)")
	fs.IntVar(&o.users, "users", 16, "number of static restricted token users to generate")
	fs.BoolVar(&o.exitOnStdinEOF, "exit-on-stdin-eof", false, "shut down when stdin reaches EOF (e.g. the parent died)")
	fs.DurationVar(&o.readyTimeout, "ready-timeout", 2*time.Minute, "give up if /readyz is not ok within this time")
	fs.BoolVar(&o.etcdOnly, "etcd-only", false, "run only the embedded etcd (several API servers started with --etcd-servers can share it)")
	fs.IntVar(&o.etcdPort, "etcd-port", 0, "client port of the embedded etcd on 127.0.0.1; 0 picks a free port")
	fs.StringVar(&o.etcdServers, "etcd-servers", "", "use this etcd (such as http://127.0.0.1:2379) instead of an embedded one")
	fs.Var(&o.apiserverArgs, "apiserver-arg", "extra kube-apiserver flag --name=value, appended after ours (repeatable)")
	fs.Parse(os.Args[1:])
	if fs.NArg() > 0 {
		fmt.Fprintf(os.Stderr, "elector-apiserver: unexpected argument %q; all options are flags, see --help\n", fs.Arg(0))
		os.Exit(2)
	}
	if o.port < 0 || o.port > 65535 || o.etcdPort < 0 || o.etcdPort > 65535 || o.users < 0 || o.readyTimeout <= 0 {
		fmt.Fprintln(os.Stderr, "elector-apiserver: --port and --etcd-port must be 0..65535, --users >= 0 and --ready-timeout > 0")
		os.Exit(2)
	}
	if o.etcdOnly && (o.etcdServers != "" || len(o.apiserverArgs) > 0) {
		fmt.Fprintln(os.Stderr, "elector-apiserver: --etcd-only runs no API server; drop --etcd-servers and --apiserver-arg, or drop --etcd-only")
		os.Exit(2)
	}
	if o.etcdServers != "" && o.etcdPort != 0 {
		fmt.Fprintln(os.Stderr, "elector-apiserver: --etcd-port is for the embedded etcd, which --etcd-servers replaces; pass only one of them")
		os.Exit(2)
	}
	return o
}

func run(o options) (err error) {
	// The command installs the SIGTERM/SIGINT handler of kube-apiserver; its
	// context is cancelled by the first signal (a second one exits at once).
	// Created first so a signal during our own set-up is handled the same way.
	cmd := app.NewAPIServerCommand()
	ctx := cmd.Context()

	dataDir, unlock, err := prepareDataDir(o.dataDir)
	if err != nil {
		return err
	}
	defer func() {
		unlock()
		if !o.keepData {
			if rmErr := os.RemoveAll(dataDir); rmErr != nil && err == nil {
				err = fail("removing the data dir "+dataDir, rmErr, "remove it by hand")
			}
		}
	}()

	logPath := o.logFile
	if logPath == "" {
		logPath = filepath.Join(dataDir, "apiserver.log")
	}
	if logPath, err = filepath.Abs(logPath); err != nil {
		return fail("--log-file", err, "pass a valid path")
	}
	stdout, err := redirectOutput(logPath)
	if err != nil {
		return fail("opening the log file "+logPath, err, "pass a writable --log-file")
	}
	// From here on, everything except our own messages lands in the log file.
	defer func() {
		if err != nil {
			err = fmt.Errorf("%w (log: %s)", err, keepLog(logPath, dataDir, o.keepData))
		}
	}()
	// kube-apiserver calls klog.Fatal (and so exits past our defers) when a
	// post-start hook fails, which it also does when it is stopped while
	// starting. Clean up there too; if we were asked to stop, that is a clean exit.
	var startErr atomic.Value // our own reason to stop a start-up, if any
	klog.OsExit = func(code int) {
		switch e, _ := startErr.Load().(error); {
		case e != nil:
			fmt.Fprintf(errOut, "%v (log: %s)\n", e, keepLog(logPath, dataDir, o.keepData))
			code = 1
		case ctx.Err() == nil:
			fmt.Fprintf(errOut, "elector-apiserver: kube-apiserver aborted with a fatal error (exit %d) (log: %s)\n",
				code, keepLog(logPath, dataDir, o.keepData))
		default:
			code = 0
		}
		unlock()
		if !o.keepData {
			os.RemoveAll(dataDir)
		}
		os.Exit(code)
	}

	if o.exitOnStdinEOF {
		go func() {
			io.Copy(io.Discard, os.Stdin)
			genericapiserver.RequestShutdown()
		}()
	}

	port := o.port
	if port == 0 {
		if port, err = freePort(); err != nil {
			return fail("finding a free port", err, "check the loopback interface")
		}
	} else if l, lerr := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port))); lerr != nil {
		return fail(fmt.Sprintf("port %d on 127.0.0.1 is not available", port), lerr, "choose another --port or stop the process using it")
	} else {
		l.Close()
	}
	server := fmt.Sprintf("https://127.0.0.1:%d", port)

	keys := pki{dir: filepath.Join(dataDir, "pki")}
	if err := keys.ensure(); err != nil {
		return fail("creating certificates in "+keys.dir, err, "delete that directory to regenerate them")
	}
	usersPath := filepath.Join(dataDir, "users.json")
	tokenFile := filepath.Join(dataDir, "tokens.csv")
	if _, err := ensureUsers(usersPath, tokenFile, o.users); err != nil {
		return fail("writing "+usersPath, err, "check that the data dir is writable")
	}
	kubeconfig := filepath.Join(dataDir, "admin.kubeconfig")
	if err := writeKubeconfig(kubeconfig, server, keys); err != nil {
		return fail("writing "+kubeconfig, err, "check that the data dir is writable")
	}

	etcdURL := o.etcdServers
	if etcdURL == "" {
		etcd, embeddedURL, err := startEtcd(ctx, filepath.Join(dataDir, "etcd"), o.etcdPort)
		if err != nil {
			if ctx.Err() != nil {
				return nil // asked to stop during start-up
			}
			return fail("starting embedded etcd in "+filepath.Join(dataDir, "etcd"), err,
				"if the data is damaged, start with a new --data-dir; if --etcd-port is taken, choose another")
		}
		defer etcd.Close()
		etcdURL = embeddedURL
	}
	abs := func(p string) string { a, _ := filepath.Abs(p); return a }
	if o.etcdOnly {
		line, _ := json.Marshal(readyLine{
			Kubeconfig:  abs(kubeconfig),
			Users:       abs(usersPath),
			DataDir:     dataDir,
			Etcd:        etcdURL,
			Version:     version.Get().GitVersion,
			PID:         os.Getpid(),
			StartMillis: time.Since(processStart()).Milliseconds(),
		})
		fmt.Fprintf(stdout, "%s %s\n", readyPrefix, line)
		<-ctx.Done()
		return nil
	}

	certDir := filepath.Join(dataDir, "cert-dir")
	cmd.SetArgs(append([]string{
		"--bind-address=127.0.0.1",
		"--advertise-address=127.0.0.1",
		"--secure-port=" + strconv.Itoa(port),
		"--cert-dir=" + certDir,
		"--tls-cert-file=" + keys.serverCert(),
		"--tls-private-key-file=" + keys.serverKey(),
		"--client-ca-file=" + keys.caCert(),
		"--token-auth-file=" + tokenFile,
		"--etcd-servers=" + etcdURL,
		"--service-account-issuer=" + saIssuer,
		"--api-audiences=" + saIssuer,
		"--service-account-key-file=" + keys.saKey(),
		"--service-account-signing-key-file=" + keys.saKey(),
		"--authorization-mode=RBAC",
		// No controller-manager runs here, so nothing would create the
		// "default" ServiceAccount this plugin waits for.
		"--disable-admission-plugins=ServiceAccount",
		"--service-cluster-ip-range=10.0.0.0/24",
		// Loopback cannot be published as the endpoint of the "kubernetes"
		// Service, and nothing in the tests needs it.
		"--endpoint-reconciler-type=none",
		"--profiling=false",
	}, o.apiserverArgs...))
	apiDone := make(chan struct{}) // closed when kube-apiserver has returned
	var apiErr error
	go func() {
		apiErr = cmd.Execute()
		close(apiDone)
	}()

	if err := waitReady(ctx, server, keys, o.readyTimeout, apiDone); err != nil {
		stopped := ctx.Err() != nil // asked to stop during start-up
		if !stopped {
			startErr.Store(err)
			genericapiserver.RequestShutdown()
		}
		// Let kube-apiserver let go of etcd and the data dir before they go.
		select {
		case <-apiDone:
		case <-time.After(stopTimeout):
		}
		switch {
		case stopped:
			return nil
		case errors.Is(err, errExited):
			return fail("kube-apiserver exited before it was ready", apiErr, "")
		}
		return err
	}

	line, _ := json.Marshal(readyLine{
		Server:      server,
		Etcd:        etcdURL,
		Kubeconfig:  abs(kubeconfig),
		Users:       abs(usersPath),
		DataDir:     dataDir,
		Version:     version.Get().GitVersion,
		PID:         os.Getpid(),
		StartMillis: time.Since(processStart()).Milliseconds(),
	})
	// An *os.File is unbuffered: the line is in the pipe when Write returns.
	fmt.Fprintf(stdout, "%s %s\n", readyPrefix, line)

	<-apiDone
	if ctx.Err() == nil {
		return fail("kube-apiserver stopped unexpectedly", apiErr, "")
	}
	return nil // stopped on request; errors while shutting down are in the log
}

// prepareDataDir creates (or checks) the data dir and locks it.
func prepareDataDir(dir string) (string, func(), error) {
	var err error
	if dir == "" {
		if dir, err = os.MkdirTemp("", "elector-apiserver-"); err != nil {
			return "", nil, fail("creating a temp data dir", err, "set TMPDIR to a writable directory or pass --data-dir")
		}
	} else {
		if dir, err = filepath.Abs(dir); err != nil {
			return "", nil, fail("--data-dir", err, "pass a valid path")
		}
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return "", nil, fail("creating the data dir "+dir, err, "pass a writable --data-dir")
		}
		entries, _ := os.ReadDir(dir)
		if len(entries) > 0 && !exists(filepath.Join(dir, markerFile)) {
			return "", nil, fail("the data dir "+dir+" is not empty and was not created by elector-apiserver", nil,
				"pass a new or empty --data-dir (it is deleted on exit unless --keep-data)")
		}
	}
	marker, err := os.OpenFile(filepath.Join(dir, markerFile), os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return "", nil, fail("writing to the data dir "+dir, err, "pass a writable --data-dir")
	}
	if err := unix.Flock(int(marker.Fd()), unix.LOCK_EX|unix.LOCK_NB); err != nil {
		marker.Close()
		return "", nil, fail("the data dir "+dir+" is in use by another elector-apiserver", err,
			"stop that process or pass another --data-dir")
	}
	return dir, func() { marker.Close() }, nil
}

// redirectOutput points fds 1 and 2 at the log file, so that no library can
// write to our stdout, and returns a handle on the original stdout. errOut is
// switched to a handle on the original stderr.
func redirectOutput(logPath string) (*os.File, error) {
	logFile, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	defer logFile.Close()
	outFd, err := unix.Dup(1)
	if err != nil {
		return nil, err
	}
	errFd, err := unix.Dup(2)
	if err != nil {
		return nil, err
	}
	if err := unix.Dup2(int(logFile.Fd()), 1); err != nil {
		return nil, err
	}
	if err := unix.Dup2(int(logFile.Fd()), 2); err != nil {
		return nil, err
	}
	errOut = os.NewFile(uintptr(errFd), "stderr")
	return os.NewFile(uintptr(outFd), "stdout"), nil
}

// keepLog returns where the log of a failed start can be read: a log inside a
// data dir that is about to be deleted is moved to the temp dir first.
func keepLog(logPath, dataDir string, keepData bool) string {
	if keepData {
		return logPath
	}
	if rel, err := filepath.Rel(dataDir, logPath); err != nil || strings.HasPrefix(rel, "..") {
		return logPath
	}
	saved := filepath.Join(os.TempDir(), fmt.Sprintf("elector-apiserver-%d.log", os.Getpid()))
	if os.Rename(logPath, saved) != nil {
		return logPath + " (deleted with the data dir; use --keep-data to keep it)"
	}
	return saved
}
