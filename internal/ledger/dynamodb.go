package ledger

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"strconv"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// The item's attributes (docs/budgets.md "The ledger").
const (
	attrPK        = "pk"        // "<key>#<YYYY-MM-DD>", the table's only key
	attrReserved  = "reserved"  // number: the day's total in units
	attrIntents   = "intents"   // map: intent -> amount in units
	attrExpiresAt = "expiresAt" // number: epoch seconds, the table's TTL attribute
)

// The update expressions. #i is the intent; :amt its amount; :max = limit - amount, the largest
// total that still leaves room for it.
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
)

// maxAttempts bounds the rounds of write, read, write that a Reserve or Release makes when
// other instances' writes keep changing the item between its write and its read.
const maxAttempts = 8

// dynamoAPI is the part of the DynamoDB client the ledger uses.
type dynamoAPI interface {
	GetItem(context.Context, *dynamodb.GetItemInput, ...func(*dynamodb.Options)) (*dynamodb.GetItemOutput, error)
	UpdateItem(context.Context, *dynamodb.UpdateItemInput, ...func(*dynamodb.Options)) (*dynamodb.UpdateItemOutput, error)
}

// Dynamo is a Ledger in a DynamoDB table (key pk, a string), shared by every instance.
type Dynamo struct {
	table  string
	client func() dynamoAPI
}

// NewDynamo returns the ledger in table, at endpoint ("" for the region's), never creating the
// table or sending anything before first use. cfg.BaseEndpoint is ignored (it may point at Secrets
// Manager); an empty cfg.Region is us-east-1.
func NewDynamo(cfg aws.Config, table, endpoint string) (*Dynamo, error) {
	if err := cmp.Or(checkTable(table), checkEndpoint(endpoint)); err != nil {
		return nil, fmt.Errorf("ledger: %w", err)
	}
	cfg.Region = cmp.Or(cfg.Region, "us-east-1")
	return &Dynamo{
		table: table,
		client: sync.OnceValue(func() dynamoAPI {
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
		out, err := d.updateKey(ctx, p.id(), reserveExpr, reserveCond, names, values, types.ReturnValueUpdatedNew)
		if err == nil {
			return d.result(p, out)
		}
		if !conditionFailed(err) {
			return Usage{}, d.unavailable("reserve", p.id(), err)
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
			out, err := d.updateKey(ctx, p.id(), createExpr, createCond, names, values, types.ReturnValueUpdatedNew)
			if err == nil {
				return d.result(p, out)
			}
			if !conditionFailed(err) {
				return Usage{}, d.unavailable("reserve", p.id(), err)
			}
		}
		// Another write came between ours and the read (the day's first by another instance,
		// or a release): try again against the item as it is now.
	}
	return Usage{}, d.unavailable("reserve", p.id(), fmt.Errorf("the item kept changing under %d attempts", maxAttempts))
}

// Release implements Ledger: a read for the intent's amount, then one conditional UpdateItem.
func (d *Dynamo) Release(ctx context.Context, key string, day time.Time, intent string) (Usage, error) {
	p, err := intentPeriod(key, day, intent)
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
		out, err := d.updateKey(ctx, p.id(), releaseExpr, releaseCond, names, values, types.ReturnValueUpdatedNew)
		if err == nil {
			return d.result(p, out)
		}
		if !conditionFailed(err) {
			return Usage{}, d.unavailable("release", p.id(), err)
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

// result reads the new total from an UpdateItem's UPDATED_NEW attributes.
func (d *Dynamo) result(p period, out *dynamodb.UpdateItemOutput) (Usage, error) {
	v, ok := out.Attributes[attrReserved]
	if !ok {
		return Usage{}, d.unavailable("update", p.id(), fmt.Errorf("the answer has no %s", attrReserved))
	}
	n, err := parseNumber(v)
	if err != nil {
		return Usage{}, d.unavailable("update", p.id(), fmt.Errorf("attribute %s: %w", attrReserved, err))
	}
	return p.usage(n), nil
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
