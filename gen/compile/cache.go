package compile

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
)

// Cache stores compiler outputs by key. Each entry holds the SHA-256 of its
// key and payload, so a corrupted or truncated entry, or one copied under
// another key, is detected, removed and rebuilt, never used. Writes go to a temp file and are renamed in place, so concurrent
// runs and interrupted writes never leave a partial entry under a key.
type Cache struct {
	Dir string
	// Hits and Misses count lookups, for progress and tests.
	Hits, Misses int
}

// DefaultCacheDir is $KGEN_CACHE, else the user cache dir's kgen folder.
func DefaultCacheDir() string {
	if d := os.Getenv("KGEN_CACHE"); d != "" {
		return d
	}
	if d, err := os.UserCacheDir(); err == nil {
		return filepath.Join(d, "kgen")
	}
	return filepath.Join(os.TempDir(), "kgen-cache")
}

// Key hashes the parts that determine a compile's output.
func Key(parts ...string) string {
	h := sha256.New()
	for _, p := range parts {
		fmt.Fprintf(h, "%d:%s", len(p), p)
	}
	return hex.EncodeToString(h.Sum(nil))
}

func (c *Cache) path(key string) string { return filepath.Join(c.Dir, key[:2], key) }

// Get returns the payload under key, or nil if absent or corrupt.
func (c *Cache) Get(key string) []byte {
	if c == nil || c.Dir == "" {
		return nil
	}
	b, err := os.ReadFile(c.path(key))
	if err != nil {
		return nil
	}
	if len(b) < sha256.Size {
		os.Remove(c.path(key)) // truncated: drop it so it is rebuilt
		return nil
	}
	sum, payload := b[:sha256.Size], b[sha256.Size:]
	got := entrySum(key, payload)
	if !bytes.Equal(sum, got[:]) {
		os.Remove(c.path(key)) // corrupt: drop it so it is rebuilt
		return nil
	}
	return payload
}

// entrySum is what an entry's first 32 bytes hold: the SHA-256 of its key
// and payload.
func entrySum(key string, payload []byte) [sha256.Size]byte {
	h := sha256.New()
	fmt.Fprintf(h, "%d:%s", len(key), key)
	h.Write(payload)
	var s [sha256.Size]byte
	h.Sum(s[:0])
	return s
}

// Put stores payload under key. Errors are ignored: the cache only saves time.
func (c *Cache) Put(key string, payload []byte) {
	if c == nil || c.Dir == "" {
		return
	}
	p := c.path(key)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return
	}
	f, err := os.CreateTemp(filepath.Dir(p), ".tmp-*")
	if err != nil {
		return
	}
	sum := entrySum(key, payload)
	_, err1 := f.Write(sum[:])
	_, err2 := f.Write(payload)
	err3 := f.Close()
	if err1 != nil || err2 != nil || err3 != nil {
		os.Remove(f.Name())
		return
	}
	if err := os.Rename(f.Name(), p); err != nil {
		os.Remove(f.Name())
	}
}
