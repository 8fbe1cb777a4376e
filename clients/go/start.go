package pushmock

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"
)

// Server is a `pushmock serve` started for a test: a Client with the ports it bound.
type Server struct {
	*Client
	Ports   Ports
	PushURL string
	cmd     *exec.Cmd
	log     *lockedBuffer
	folder  string
	exited  chan error
}

// Ports are the ports the server bound (--ports-file).
type Ports struct {
	Push       int  `json:"push"`
	Inspection int  `json:"inspection"`
	Cleartext  *int `json:"cleartext"`
	Proxy      *int `json:"proxy"`
	Metadata   *int `json:"metadata"`
}

// StartOption configures Start.
type StartOption func(*startConfig)

type startConfig struct {
	binary  string
	args    []string
	timeout time.Duration
}

// WithBinary runs this pushmock binary (default: $PUSHMOCK_BIN, then pushmock on PATH).
func WithBinary(path string) StartOption { return func(c *startConfig) { c.binary = path } }

// WithArgs adds serve flags, e.g. WithArgs("--live-activity-profile", "apple").
func WithArgs(args ...string) StartOption {
	return func(c *startConfig) { c.args = append(c.args, args...) }
}

// FindBinary returns binary, else $PUSHMOCK_BIN, else pushmock on PATH.
func FindBinary(binary string) (string, error) {
	if binary == "" {
		binary = os.Getenv("PUSHMOCK_BIN")
	}
	if binary == "" {
		found, err := exec.LookPath("pushmock")
		if err != nil {
			return "", fmt.Errorf("pushmock binary not found: set PUSHMOCK_BIN to its path, put it on PATH, or use WithBinary (the release archive has it)")
		}
		binary = found
	}
	if _, err := os.Stat(binary); err != nil {
		return "", fmt.Errorf("pushmock binary %s: %w", binary, err)
	}
	return binary, nil
}

// Start runs `pushmock serve` on free ports with its own data directory for the test, and stops
// it in t.Cleanup. A server that does not start fails the test.
func Start(t testing.TB, opts ...StartOption) *Server {
	t.Helper()
	server, err := StartServer(opts...)
	if err != nil {
		t.Fatalf("pushmock: %v", err)
	}
	t.Cleanup(func() {
		if err := server.Stop(); err != nil {
			t.Errorf("pushmock: %v", err)
		}
	})
	return server
}

// StartServer is Start without a testing.TB: call Stop when done.
func StartServer(opts ...StartOption) (*Server, error) {
	config := startConfig{timeout: 30 * time.Second}
	for _, opt := range opts {
		opt(&config)
	}
	binary, err := FindBinary(config.binary)
	if err != nil {
		return nil, err
	}
	folder, err := os.MkdirTemp("", "pushmock-")
	if err != nil {
		return nil, err
	}
	portsFile := filepath.Join(folder, "ports.json")
	args := append([]string{"serve", "--port", "0", "--inspection-port", "0", "--data-dir", filepath.Join(folder, "data"), "--ports-file", portsFile}, config.args...)
	cmd := exec.Command(binary, args...)
	cmd.Dir = folder
	log := &lockedBuffer{}
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Start(); err != nil {
		os.RemoveAll(folder)
		return nil, err
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	deadline := time.Now().Add(config.timeout)
	for time.Now().Before(deadline) {
		if data, err := os.ReadFile(portsFile); err == nil && len(data) > 0 {
			var ports Ports
			if err := json.Unmarshal(data, &ports); err != nil {
				return nil, fmt.Errorf("%s: %w", portsFile, err)
			}
			server := &Server{Client: New(fmt.Sprintf("http://127.0.0.1:%d", ports.Inspection)), Ports: ports, PushURL: fmt.Sprintf("https://localhost:%d", ports.Push), cmd: cmd, log: log, folder: folder}
			server.exited = exited
			ctx, cancel := context.WithTimeout(context.Background(), time.Until(deadline))
			defer cancel()
			for !server.Ready(ctx) {
				if ctx.Err() != nil {
					server.Stop()
					return nil, fmt.Errorf("pushmock serve never became ready: %s", log.String())
				}
				time.Sleep(50 * time.Millisecond)
			}
			return server, nil
		}
		select {
		case <-exited:
			os.RemoveAll(folder)
			return nil, fmt.Errorf("pushmock serve exited: %s", log.String())
		case <-time.After(50 * time.Millisecond):
		}
	}
	cmd.Process.Kill()
	os.RemoveAll(folder)
	return nil, fmt.Errorf("pushmock serve did not report its ports within %s: %s", config.timeout, log.String())
}

// Log is what the server printed.
func (s *Server) Log() string { return s.log.String() }

// Stop sends SIGTERM and waits (SIGKILL after 10 s).
func (s *Server) Stop() error {
	defer os.RemoveAll(s.folder)
	defer s.Client.Close()
	if err := s.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		return nil // already gone
	}
	select {
	case err := <-s.exited:
		if err != nil {
			return fmt.Errorf("pushmock serve exited with %v: %s", err, s.log.String())
		}
		return nil
	case <-time.After(10 * time.Second):
		s.cmd.Process.Kill()
		return fmt.Errorf("pushmock serve did not stop within 10 s of SIGTERM")
	}
}

type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
