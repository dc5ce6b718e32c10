import { retryLostWrites } from './lost-writes';

describe('retryLostWrites', () => {
  it('runs the attempt again after a lost write, and answers what the first winning one returns', async () => {
    const results = [undefined, undefined, 'saved'];
    let calls = 0;
    expect(await retryLostWrites(async () => results[calls++])).toBe('saved');
    expect(calls).toBe(3);
  });

  it('answers CONFLICT after three lost writes', async () => {
    let calls = 0;
    await expect(retryLostWrites(async () => void calls++)).rejects.toMatchObject({ code: 'CONFLICT' });
    expect(calls).toBe(3);
  });
});
