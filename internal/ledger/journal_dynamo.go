package ledger

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// The journal's items in the budgets' table (docs/once.md "The journal"): "intent#<id>" with
// the attributes its conditions read and the rest as JSON, and "receipts#<address>", a map.
const (
	attrState   = "st"
	attrAttempt = "att"
	attrLease   = "lease" // unix milliseconds
	attrFP      = "fp"
	attrDoc     = "doc"
	attrRcpts   = "rc"
)

const (
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
	all := len(rs)
	rs = newestFirst(rs)
	if all > MaxReceipts {
		d.prune(ctx, payer, m.Value, rs)
	}
	return rs, nil
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
