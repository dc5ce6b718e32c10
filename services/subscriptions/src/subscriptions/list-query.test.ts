import { OFFSET_MAX, parseListQuery, sortSpec, type ListQueryInput } from './list-query';

const rejects = (raw: ListQueryInput, param: string) =>
  expect(() => parseListQuery(raw)).toThrow(expect.objectContaining({ code: 'VALIDATION_FAILED', param }));

describe('parseListQuery', () => {
  it('applies the spec defaults', () => {
    expect(parseListQuery({})).toEqual({
      query: { limit: 20, offset: 0, sort_by: 'created_at', sort_order: 'DESC' },
      sortSpec: [
        ['created_at', -1],
        ['id', -1],
      ],
    });
  });

  it('treats null and empty strings as absent', () => {
    expect(parseListQuery({ status: '', product_id: null, limit: '', sort_by: undefined }).query).toEqual({
      limit: 20,
      offset: 0,
      sort_by: 'created_at',
      sort_order: 'DESC',
    });
  });

  it('accepts every filter, as numbers or as query-string digits', () => {
    expect(
      parseListQuery({
        status: 'paused',
        product_id: '42',
        limit: 100,
        offset: '10000',
        sort_by: 'actual_price',
        sort_order: 'ASC',
      }).query,
    ).toEqual({
      status: 'paused',
      product_id: 42,
      limit: 100,
      offset: OFFSET_MAX,
      sort_by: 'actual_price',
      sort_order: 'ASC',
    });
    expect(parseListQuery({ limit: '1', offset: 0 }).query).toMatchObject({ limit: 1, offset: 0 });
  });

  it.each(['pending', 'active', 'due', 'cancelled', 'paused'])('status %s', (status) => {
    expect(parseListQuery({ status }).query.status).toBe(status);
  });

  it.each<[ListQueryInput, string]>([
    [{ status: 'canceled' }, 'status'],
    [{ status: 'ACTIVE' }, 'status'],
    [{ status: 3 }, 'status'],
    [{ product_id: 0 }, 'product_id'],
    [{ product_id: -4 }, 'product_id'],
    [{ product_id: 1.5 }, 'product_id'],
    [{ product_id: 'abc' }, 'product_id'],
    [{ product_id: '1e3' }, 'product_id'],
    [{ product_id: 2 ** 53 }, 'product_id'],
    [{ limit: 0 }, 'limit'],
    [{ limit: 101 }, 'limit'],
    [{ limit: '-1' }, 'limit'],
    [{ limit: ' 20' }, 'limit'],
    [{ limit: 20.5 }, 'limit'],
    [{ limit: Number.NaN }, 'limit'],
    [{ offset: -1 }, 'offset'],
    [{ offset: OFFSET_MAX + 1 }, 'offset'],
    [{ offset: true }, 'offset'],
    [{ sort_by: 'next_payment_date' }, 'sort_by'],
    [{ sort_by: 'amount' }, 'sort_by'],
    [{ sort_order: 'asc' }, 'sort_order'],
    [{ sort_order: 'UP' }, 'sort_order'],
  ])('rejects %p naming %s', (raw, param) => {
    rejects(raw, param);
  });

  it('says what is allowed', () => {
    expect(() => parseListQuery({ limit: 500 })).toThrow('limit must be an integer from 1 to 100');
    expect(() => parseListQuery({ product_id: 0 })).toThrow('product_id must be an integer ≥ 1');
    expect(() => parseListQuery({ status: 'x' })).toThrow(
      'status must be one of pending, active, due, cancelled, paused',
    );
    expect(() => parseListQuery({ sort_order: 'x' })).toThrow('sort_order must be one of ASC, DESC');
  });
});

describe('sortSpec', () => {
  it.each([
    [
      'created_at',
      'DESC',
      [
        ['created_at', -1],
        ['id', -1],
      ],
    ],
    [
      'next_payment',
      'ASC',
      [
        ['next_payment_date', 1],
        ['created_at', 1],
        ['id', 1],
      ],
    ],
    [
      'actual_price',
      'DESC',
      [
        ['amount.amount', -1],
        ['created_at', -1],
        ['id', -1],
      ],
    ],
    [
      'payment_status',
      'ASC',
      [
        ['payment_status', 1],
        ['created_at', 1],
        ['id', 1],
      ],
    ],
  ] as const)('%s %s', (by, order, expected) => {
    expect(sortSpec(by, order)).toEqual(expected);
    expect(parseListQuery({ sort_by: by, sort_order: order }).sortSpec).toEqual(expected);
  });

  it('always ends with id, so the order is total', () => {
    for (const by of ['created_at', 'next_payment', 'actual_price', 'payment_status'] as const) {
      expect(sortSpec(by, 'ASC').at(-1)).toEqual(['id', 1]);
    }
  });
});
