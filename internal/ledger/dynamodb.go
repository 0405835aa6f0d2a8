package ledger

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// The attributes of a day's item (docs/budgets.md "The ledger") and of the journal's items
// (docs/once.md "The journal"): "intent#<id>" with the attributes its conditions read and the
// rest as JSON, and "receipts#<address>", a map.
const (
	attrPK        = "pk"        // "<key>#<YYYY-MM-DD>", the table's only key
	attrReserved  = "reserved"  // number: the day's total in units
	attrIntents   = "intents"   // map: intent -> amount in units
	attrExpiresAt = "expiresAt" // number: epoch seconds, the table's TTL attribute

	attrState   = "st"
	attrAttempt = "att"
	attrLease   = "lease" // unix milliseconds
	attrFP      = "fp"
	attrDoc     = "doc"
	attrRcpts   = "rc"
)

// The update expressions. For a day, #i is the intent; :amt its amount; :max = limit - amount,
// the largest total that still leaves room for it.
const (
	// reserveExpr adds an intent to a day whose item and intents map exist (every reservation
	// but a day's first). The condition does both checks in the same atomic write.
	reserveExpr = "SET #intents.#i = :amt, #exp = :exp ADD #reserved :amt"
	reserveCond = "attribute_exists(#intents) AND attribute_not_exists(#intents.#i) AND #reserved <= :max"
	// createExpr writes a day's first intent, creating the intents map (a nested SET on a map
	// that is not there is rejected, so the first reservation has a form of its own).
	createExpr = "SET #intents = :intents, #exp = :exp ADD #reserved :amt"
	createCond = "attribute_not_exists(#intents) AND (attribute_not_exists(#reserved) OR #reserved <= :max)"
	// releaseExpr removes an intent and subtracts the amount it was reserved with, on condition
	// it is still there with that amount.
	releaseExpr = "REMOVE #intents.#i ADD #reserved :neg"
	releaseCond = "#intents.#i = :amt"

	claimExpr = "SET #st = :pending, #att = :att, #lease = :lease, #fp = :fp, #doc = :doc, #exp = :exp"
	// An absent entry, one the TTL should have removed, or one that certainly paid nothing
	// under the same fingerprint (failed, or pending with a dead owner) may be claimed.
	claimCond = "attribute_not_exists(#pk) OR #exp < :nowsec OR (#fp = :fp AND (#st = :failed OR (#st = :pending AND #lease < :now)))"
	saveExpr  = "SET #st = :st, #att = :att, #lease = :lease, #doc = :doc, #exp = :exp"
	saveCond  = "#att = :prev AND #exp >= :nowsec"

	receiptExpr  = "SET #rc.#id = :doc, #exp = :exp"
	receiptCond  = "attribute_exists(#rc)"
	receiptsExpr = "SET #rc = :map, #exp = :exp"
	receiptsCond = "attribute_not_exists(#rc)"
)

// maxAttempts bounds the rounds of write, read, write that a Reserve or Release makes when
// other instances' writes keep changing the item between its write and its read.
const maxAttempts = 8

// Dynamo is a Store in a DynamoDB table (key pk, a string), shared by every instance.
type Dynamo struct {
	table  string
	client func() *dynamodb.Client
}

// NewDynamo returns the ledger in table, at endpoint ("" for the region's), never creating the
// table or sending anything before first use. cfg.BaseEndpoint is ignored (it may point at Secrets
// Manager); an empty cfg.Region is us-east-1.
func NewDynamo(cfg aws.Config, table, endpoint string) (*Dynamo, error) {
	if err := checkTable(table); err != nil {
		return nil, fmt.Errorf("ledger: %w", err)
	}
	if u, err := url.Parse(endpoint); endpoint != "" && (err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "") {
		return nil, fmt.Errorf("ledger: MINDVAULT_LEDGER_ENDPOINT=%q must be an http:// or https:// URL (or unset, for the region's DynamoDB)", endpoint)
	}
	cfg.Region = cmp.Or(cfg.Region, "us-east-1")
	return &Dynamo{
		table: table,
		client: sync.OnceValue(func() *dynamodb.Client {
			return dynamodb.NewFromConfig(cfg, func(o *dynamodb.Options) {
				o.BaseEndpoint = nil
				if endpoint != "" {
					o.BaseEndpoint = aws.String(endpoint)
				}
			})
		}),
	}, nil
}

// Reserve implements Ledger with one conditional UpdateItem in the common case.
func (d *Dynamo) Reserve(ctx context.Context, key string, day time.Time, intent string, amount, limit int64) (Usage, error) {
	p, err := reservePeriod(key, day, intent, amount, limit)
	if err != nil {
		return Usage{}, err
	}
	names := map[string]string{"#intents": attrIntents, "#i": intent, "#reserved": attrReserved, "#exp": attrExpiresAt}
	values := map[string]types.AttributeValue{
		":amt": number(amount),
		":max": number(limit - amount), // may be negative: then no total passes, and the read below tells why
		":exp": number(p.expiresAt().Unix()),
	}
	for range maxAttempts {
		if u, done, err := d.update(ctx, "reserve", p, reserveExpr, reserveCond, names, values); done {
			return u, err
		}
		it, err := d.get(ctx, p)
		if err != nil {
			return Usage{}, err
		}
		if _, ok := it.intents[intent]; ok {
			return p.usage(it.reserved), nil // already reserved: idempotent
		}
		if amount > limit-it.reserved {
			return p.exceeded(it.reserved, amount, limit)
		}
		if it.intents == nil { // the day's first reservation
			// createExpr has no #i: DynamoDB refuses a name the expressions do not use.
			names, values := maps.Clone(names), maps.Clone(values)
			delete(names, "#i")
			values[":intents"] = &types.AttributeValueMemberM{Value: map[string]types.AttributeValue{intent: number(amount)}}
			if u, done, err := d.update(ctx, "reserve", p, createExpr, createCond, names, values); done {
				return u, err
			}
		}
		// Another write came between ours and the read (the day's first by another instance,
		// or a release): try again against the item as it is now.
	}
	return Usage{}, d.unavailable("reserve", p.id(), fmt.Errorf("the item kept changing under %d attempts", maxAttempts))
}

// Release implements Ledger: a read for the intent's amount, then one conditional UpdateItem.
func (d *Dynamo) Release(ctx context.Context, key string, day time.Time, intent string) (Usage, error) {
	p, err := newPeriod(key, day, intent)
	if err != nil {
		return Usage{}, err
	}
	names := map[string]string{"#intents": attrIntents, "#i": intent, "#reserved": attrReserved}
	for range maxAttempts {
		it, err := d.get(ctx, p)
		if err != nil {
			return Usage{}, err
		}
		amt, ok := it.intents[intent]
		if !ok {
			return p.usage(it.reserved), nil // never reserved or already released: a no-op
		}
		values := map[string]types.AttributeValue{":amt": number(amt), ":neg": number(-amt)}
		if u, done, err := d.update(ctx, "release", p, releaseExpr, releaseCond, names, values); done {
			return u, err
		}
		// Released (or released and reserved again) by another call in between: read again.
	}
	return Usage{}, d.unavailable("release", p.id(), fmt.Errorf("the item kept changing under %d attempts", maxAttempts))
}

// Usage implements Ledger with one strongly consistent GetItem.
func (d *Dynamo) Usage(ctx context.Context, key string, day time.Time) (Usage, error) {
	p, err := newPeriod(key, day)
	if err != nil {
		return Usage{}, err
	}
	it, err := d.get(ctx, p)
	if err != nil {
		return Usage{}, err
	}
	return p.usage(it.reserved), nil
}

func (d *Dynamo) get(ctx context.Context, p period) (tally, error) {
	attrs, err := d.getKey(ctx, p.id())
	if err != nil {
		return tally{}, d.unavailable("read", p.id(), err)
	}
	var it tally
	if v, ok := attrs[attrReserved]; ok {
		if it.reserved, err = parseNumber(v); err != nil {
			return tally{}, d.unavailable("read", p.id(), fmt.Errorf("attribute %s: %w", attrReserved, err))
		}
	}
	if v, ok := attrs[attrIntents]; ok {
		m, ok := v.(*types.AttributeValueMemberM)
		if !ok {
			return tally{}, d.unavailable("read", p.id(), fmt.Errorf("attribute %s is not a map", attrIntents))
		}
		it.intents = make(map[string]int64, len(m.Value))
		for k, v := range m.Value {
			if it.intents[k], err = parseNumber(v); err != nil {
				return tally{}, d.unavailable("read", p.id(), fmt.Errorf("attribute %s.%q: %w", attrIntents, k, err))
			}
		}
	}
	return it, nil
}

// update is one conditional UpdateItem on p's item, answering the new total as its
// UPDATED_NEW attributes say; done is false when the condition failed.
func (d *Dynamo) update(ctx context.Context, op string, p period, expr, cond string, names map[string]string, values map[string]types.AttributeValue) (u Usage, done bool, err error) {
	out, err := d.updateKey(ctx, p.id(), expr, cond, names, values, types.ReturnValueUpdatedNew)
	switch {
	case conditionFailed(err):
		return Usage{}, false, nil
	case err != nil:
		return Usage{}, true, d.unavailable(op, p.id(), err)
	}
	v, ok := out.Attributes[attrReserved]
	if !ok {
		return Usage{}, true, d.unavailable("update", p.id(), fmt.Errorf("the answer has no %s", attrReserved))
	}
	n, err := parseNumber(v)
	if err != nil {
		return Usage{}, true, d.unavailable("update", p.id(), fmt.Errorf("attribute %s: %w", attrReserved, err))
	}
	return p.usage(n), true, nil
}

// Claim implements Journal.
func (d *Dynamo) Claim(ctx context.Context, e Entry, now time.Time) (Entry, bool, error) {
	e.State, e.LeaseUntil = Pending, now.Add(Lease)
	err := d.putEntry(ctx, "journal claim", &e, now, claimExpr, claimCond, map[string]string{"#pk": attrPK, "#fp": attrFP},
		map[string]types.AttributeValue{":pending": str(string(Pending)), ":failed": str(string(Failed)), ":fp": str(e.Fingerprint), ":now": number(now.UnixMilli())})
	switch {
	case err == nil:
		return e, true, nil
	case !conditionFailed(err):
		return Entry{}, false, err
	}
	cur, ok, err := d.Get(ctx, e.ID)
	if err != nil {
		return Entry{}, false, err
	}
	if !ok { // removed between the write and the read: the caller tries again as a new call would
		return Entry{}, false, d.unavailable("journal claim", e.ID, fmt.Errorf("the entry changed under the claim"))
	}
	return cur, false, nil
}

// Save implements Journal.
func (d *Dynamo) Save(ctx context.Context, e Entry, prev string, now time.Time) error {
	if e.LeaseUntil.IsZero() {
		e.LeaseUntil = now
	}
	err := d.putEntry(ctx, "journal save", &e, now, saveExpr, saveCond, nil, map[string]types.AttributeValue{":st": str(string(e.State)), ":prev": str(prev)})
	if conditionFailed(err) {
		return ErrNotOwner
	}
	return err
}

// putEntry writes e as of now with expr on condition cond, whose names and values beyond those
// every entry has are given; a failed condition is returned as it is.
func (d *Dynamo) putEntry(ctx context.Context, op string, e *Entry, now time.Time, expr, cond string, names map[string]string, values map[string]types.AttributeValue) error {
	if err := checkEntry(*e); err != nil {
		return err
	}
	e.Updated = now
	doc, err := json.Marshal(e)
	if err != nil {
		return fmt.Errorf("%w: entry: %v", ErrInvalid, err)
	}
	all := map[string]string{"#st": attrState, "#att": attrAttempt, "#lease": attrLease, "#doc": attrDoc, "#exp": attrExpiresAt}
	maps.Copy(all, names)
	maps.Copy(values, map[string]types.AttributeValue{":att": str(e.Attempt), ":lease": number(e.LeaseUntil.UnixMilli()),
		":doc": str(string(doc)), ":exp": number(e.expiry(now).Unix()), ":nowsec": number(now.Unix())})
	_, err = d.updateKey(ctx, "intent#"+e.ID, expr, cond, all, values, "")
	if err != nil && !conditionFailed(err) {
		return d.unavailable(op, e.ID, err)
	}
	return err
}

// Get implements Journal with one strongly consistent GetItem.
func (d *Dynamo) Get(ctx context.Context, id string) (Entry, bool, error) {
	it, err := d.getKey(ctx, "intent#"+id)
	if err != nil {
		return Entry{}, false, d.unavailable("journal read", id, err)
	}
	if len(it) == 0 {
		return Entry{}, false, nil
	}
	if exp, err := parseNumber(it[attrExpiresAt]); err == nil && exp < time.Now().Unix() {
		return Entry{}, false, nil // past its TTL: the table removes it lazily
	}
	var e Entry
	doc, _ := it[attrDoc].(*types.AttributeValueMemberS)
	if doc == nil || json.Unmarshal([]byte(doc.Value), &e) != nil {
		return Entry{}, false, d.unavailable("journal read", id, fmt.Errorf("attribute %s is not an entry", attrDoc))
	}
	e.ID = id
	e.State = State(strValue(it[attrState]))
	e.Attempt = strValue(it[attrAttempt])
	e.Fingerprint = strValue(it[attrFP])
	if ms, err := parseNumber(it[attrLease]); err == nil {
		e.LeaseUntil = time.UnixMilli(ms)
	}
	return e, true, nil
}

// AddReceipt implements Journal: one UpdateItem on the wallet's receipts item (two for its first).
func (d *Dynamo) AddReceipt(ctx context.Context, r Receipt, keep time.Duration) error {
	doc, err := json.Marshal(r)
	if err != nil {
		return fmt.Errorf("%w: receipt: %v", ErrInvalid, err)
	}
	pk := "receipts#" + r.Payer
	exp := number(time.Now().Add(keep).Unix())
	for range maxAttempts {
		_, err := d.updateKey(ctx, pk, receiptExpr, receiptCond,
			map[string]string{"#rc": attrRcpts, "#id": r.ID, "#exp": attrExpiresAt},
			map[string]types.AttributeValue{":doc": str(string(doc)), ":exp": exp}, "")
		if conditionFailed(err) { // the wallet's first receipt
			_, err = d.updateKey(ctx, pk, receiptsExpr, receiptsCond,
				map[string]string{"#rc": attrRcpts, "#exp": attrExpiresAt},
				map[string]types.AttributeValue{":map": &types.AttributeValueMemberM{Value: map[string]types.AttributeValue{r.ID: str(string(doc))}}, ":exp": exp}, "")
		}
		if err == nil {
			return nil
		}
		if !conditionFailed(err) {
			return d.unavailable("journal receipt", r.Payer, err)
		}
		// Another instance wrote the wallet's first receipt in between: add to it.
	}
	return d.unavailable("journal receipt", r.Payer, fmt.Errorf("the item kept changing under %d attempts", maxAttempts))
}

// Receipts implements Journal; past MaxReceipts it removes the oldest (best effort).
func (d *Dynamo) Receipts(ctx context.Context, payer string) ([]Receipt, error) {
	it, err := d.getKey(ctx, "receipts#"+payer)
	if err != nil {
		return nil, d.unavailable("journal read receipts", payer, err)
	}
	m, _ := it[attrRcpts].(*types.AttributeValueMemberM)
	if m == nil {
		return nil, nil
	}
	rs := make([]Receipt, 0, len(m.Value))
	for _, v := range m.Value {
		var r Receipt
		if s, ok := v.(*types.AttributeValueMemberS); ok && json.Unmarshal([]byte(s.Value), &r) == nil {
			rs = append(rs, r)
		}
	}
	kept := newestFirst(rs) // sorts rs, whose length stays what was read
	if len(rs) > MaxReceipts {
		d.prune(ctx, payer, m.Value, kept)
	}
	return kept, nil
}

// prune removes the receipts that newestFirst dropped, 50 at most per call.
func (d *Dynamo) prune(ctx context.Context, payer string, stored map[string]types.AttributeValue, kept []Receipt) {
	keep := make(map[string]bool, len(kept))
	for _, r := range kept {
		keep[r.ID] = true
	}
	names := map[string]string{"#rc": attrRcpts}
	var paths []string
	for id := range stored {
		if !keep[id] && len(paths) < 50 {
			ref := "#r" + strconv.Itoa(len(paths))
			names[ref] = id
			paths = append(paths, "#rc."+ref)
		}
	}
	if len(paths) > 0 {
		_, _ = d.updateKey(ctx, "receipts#"+payer, "REMOVE "+strings.Join(paths, ", "), "", names, nil, "")
	}
}

// updateKey is one UpdateItem on item pk, conditional unless cond is ""; ret is what it answers
// ("" for nothing).
func (d *Dynamo) updateKey(ctx context.Context, pk, expr, cond string, names map[string]string, values map[string]types.AttributeValue, ret types.ReturnValue) (*dynamodb.UpdateItemOutput, error) {
	in := &dynamodb.UpdateItemInput{
		TableName:                 aws.String(d.table),
		Key:                       map[string]types.AttributeValue{attrPK: str(pk)},
		UpdateExpression:          aws.String(expr),
		ExpressionAttributeNames:  names,
		ExpressionAttributeValues: values,
		ReturnValues:              ret,
	}
	if cond != "" {
		in.ConditionExpression = aws.String(cond)
	}
	return d.client().UpdateItem(ctx, in)
}

func (d *Dynamo) getKey(ctx context.Context, pk string) (map[string]types.AttributeValue, error) {
	out, err := d.client().GetItem(ctx, &dynamodb.GetItemInput{
		TableName:      aws.String(d.table),
		Key:            map[string]types.AttributeValue{attrPK: str(pk)},
		ConsistentRead: aws.Bool(true),
	})
	if err != nil {
		return nil, err
	}
	return out.Item, nil
}

func str(s string) types.AttributeValue { return &types.AttributeValueMemberS{Value: s} }

func strValue(v types.AttributeValue) string {
	if s, ok := v.(*types.AttributeValueMemberS); ok {
		return s.Value
	}
	return ""
}

// unavailable wraps a failure of op on item id: a day's "<key>#<date>", or for "journal <op>"
// an intent, a wallet or the switch.
func (d *Dynamo) unavailable(op, id string, err error) error {
	return fmt.Errorf("%w: dynamodb %s %s in table %s: %w", ErrUnavailable, op, id, d.table, err)
}

func conditionFailed(err error) bool {
	var ccf *types.ConditionalCheckFailedException
	return errors.As(err, &ccf)
}

func number(n int64) types.AttributeValue {
	return &types.AttributeValueMemberN{Value: strconv.FormatInt(n, 10)}
}

func parseNumber(v types.AttributeValue) (int64, error) {
	n, ok := v.(*types.AttributeValueMemberN)
	if !ok {
		return 0, errors.New("not a number")
	}
	i, err := strconv.ParseInt(n.Value, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("not an integer: %q", n.Value)
	}
	return i, nil
}
