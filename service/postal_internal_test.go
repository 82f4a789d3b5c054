package service

import (
	"path/filepath"
	"sync"
	"testing"
)

// A sweep of expired tokens running beside logins never removes a token
// being issued: every token a login returned is valid.
func TestSweepSparesNewTokens(t *testing.T) {
	p, err := newPostalAPI(Postal{Password: "x", TokenDir: filepath.Join(t.TempDir(), "tokens")})
	if err != nil {
		t.Fatal(err)
	}
	const logins = 400
	toks := make(chan string, logins)
	done := make(chan struct{})
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range logins / 4 {
				tok, err := p.newToken("kurabe")
				if err != nil {
					t.Error(err)
					return
				}
				toks <- tok
			}
		}()
	}
	go func() {
		for {
			select {
			case <-done:
				return
			default:
				p.sweepTokens()
			}
		}
	}()
	wg.Wait()
	close(done)
	close(toks)
	for tok := range toks {
		if _, ok := p.checkToken(tok); !ok {
			t.Fatal("a token a login returned was swept away")
		}
	}
}
