package store

import "context"

// Cleaner is implemented by stores that can remove what kurabe made in
// them, for kurabe clean.
type Cleaner interface {
	// Clean drops each table kurabe_meta lists that is still the table
	// kurabe made, then kurabe_meta once it lists nothing more, then the
	// namespace kurabe made for them (PostgreSQL's schema) when that is
	// empty. A listed table that is not the one kurabe made is left, and
	// so is everything it did not list. With dryRun nothing changes, and
	// the report says what would be done. It reports each thing it
	// looked at, in order.
	Clean(ctx context.Context, dryRun bool) ([]Cleaned, error)
}

// Cleaned is one thing Clean looked at.
type Cleaned struct {
	Name    string // as a query names it: kurabe.crud, appdb.kurabe_meta, schema kurabe
	Outcome CleanOutcome
}

// CleanOutcome is what Clean did with one thing, or would do.
type CleanOutcome uint8

const (
	// CleanDropped: kurabe's, dropped.
	CleanDropped CleanOutcome = iota
	// CleanUnlisted: listed, but no table is there; its entry removed.
	CleanUnlisted
	// CleanReplaced: listed, but the table there is not the one kurabe
	// made (made again under the name since): left.
	CleanReplaced
	// CleanUnproven: listed by an earlier kurabe that kept no identity,
	// and the table was made again or altered since: left.
	CleanUnproven
	// CleanListKept: kurabe_meta, left because it still lists tables
	// that were left.
	CleanListKept
	// CleanNotMade: the namespace, left because kurabe did not make it
	// (or an earlier kurabe did, which did not mark it).
	CleanNotMade
	// CleanNotEmpty: the namespace, left because other objects are in it.
	CleanNotEmpty
	// CleanNothing: nothing of kurabe's is there (no kurabe_meta).
	CleanNothing
)

// Left says whether the outcome left something of kurabe's list behind
// that the user has to look at.
func (o CleanOutcome) Left() bool {
	return o == CleanReplaced || o == CleanUnproven || o == CleanListKept
}
