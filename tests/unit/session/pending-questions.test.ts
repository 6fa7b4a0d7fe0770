import { describe, expect, it } from 'vitest';
import { isHarelError } from '../../../widget/core/errors.ts';
import { conversationRows, PendingQuestions, type PendingQuestion } from '../../../widget/session/pending-questions.ts';

/** A promise settled by hand, to hold an answer open while the test looks at the queue. */
function deferred<T>() {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((res) => (resolve = res));
  return { promise, resolve };
}

const texts = (list: readonly PendingQuestion[]) => list.map((q) => `${q.text}:${q.state}`);

describe('PendingQuestions', () => {
  it('holds questions in the order asked and answers them one at a time, oldest first', async () => {
    const queue = new PendingQuestions<{ lang: string }, string>();
    const first = queue.add('one', { lang: 'en' }, 1);
    const second = queue.add('two', { lang: 'he' }, 2);
    expect(texts(queue.list)).toEqual(['one:waiting', 'two:waiting']);
    expect(queue.busy).toBe(true);

    const running: string[] = [];
    let concurrent = 0;
    await queue.drain(async (q) => {
      concurrent++;
      expect(concurrent).toBe(1);
      running.push(`${q.text}/${q.payload.lang}/${q.at}`);
      await Promise.resolve();
      concurrent--;
      return `answer to ${q.text}`;
    });
    expect(running).toEqual(['one/en/1', 'two/he/2']);
    await expect(first).resolves.toBe('answer to one');
    await expect(second).resolves.toBe('answer to two');
    expect(queue.list).toEqual([]);
    expect(queue.busy).toBe(false);
  });

  it('takes a question out of the queue as it is answered, and answers one asked meanwhile after the rest', async () => {
    const queue = new PendingQuestions<null, string>();
    void queue.add('one', null, 1);
    void queue.add('two', null, 2);
    const hold = deferred<string>();
    const order: string[] = [];
    let late: Promise<string> | null = null;
    const drained = queue.drain(async (q) => {
      order.push(q.text);
      if (q.text === 'one') {
        // "one" is being answered: it is no longer pending, "two" still waits, and the queue is busy.
        expect(texts(queue.list)).toEqual(['two:waiting']);
        late = queue.add('three', null, 3);
        return hold.promise;
      }
      return q.text;
    });
    // A second drain while one runs leaves the work to the first.
    await queue.drain(async () => 'never');
    hold.resolve('one');
    await drained;
    expect(order).toEqual(['one', 'two', 'three']);
    await expect(late!).resolves.toBe('three');
  });

  it('stays busy while the last question is answered, so a new one queues behind it', async () => {
    const queue = new PendingQuestions<null, string>();
    void queue.add('only', null, 1);
    const hold = deferred<string>();
    const drained = queue.drain(() => hold.promise);
    await Promise.resolve();
    expect(queue.waiting).toBe(0);
    expect(queue.busy).toBe(true);
    hold.resolve('done');
    await drained;
    expect(queue.busy).toBe(false);
  });

  it('fails only the question whose answer failed, and goes on with the next', async () => {
    const queue = new PendingQuestions<null, string>();
    const bad = queue.add('bad', null, 1);
    const good = queue.add('good', null, 2);
    await queue.drain(async (q) => {
      if (q.text === 'bad') throw new Error('engine broke');
      return 'ok';
    });
    await expect(bad).rejects.toThrow('engine broke');
    await expect(good).resolves.toBe('ok');
  });

  it('keeps every waiting question, with its text, when the index fails to load', async () => {
    const queue = new PendingQuestions<null, string>();
    const one = queue.add('one', null, 1);
    const two = queue.add('two', null, 2);
    const error = { code: 'INDEX_DOWNLOAD_FAILED', message: 'Could not download index file chunks.json.gz (HTTP 500).' };
    queue.fail(error);
    await expect(one).rejects.toBe(error);
    await expect(two).rejects.toBe(error);
    expect(texts(queue.list)).toEqual(['one:failed', 'two:failed']);
    expect(queue.list.every((q) => q.error === error)).toBe(true);
    expect(queue.busy).toBe(false);
    // Nothing left to answer: a later drain does not touch them.
    await queue.drain(async () => 'never');
    expect(texts(queue.list)).toEqual(['one:failed', 'two:failed']);
  });

  it('cancels what waits when the customer stops, keeping the questions in view, and answers none of them', async () => {
    const queue = new PendingQuestions<null, string>();
    const one = queue.add('one', null, 1);
    queue.cancel();
    const rejection = await one.catch((e: unknown) => e);
    expect(isHarelError(rejection, 'ABORTED')).toBe(true);
    expect(texts(queue.list)).toEqual(['one:cancelled']);
    const two = queue.add('two', null, 2);
    const answered: string[] = [];
    await queue.drain(async (q) => {
      answered.push(q.text);
      return q.text;
    });
    expect(answered).toEqual(['two']);
    await expect(two).resolves.toBe('two');
    expect(texts(queue.list)).toEqual(['one:cancelled']);
  });

  it('forgets everything when the conversation is cleared, cancelling what waited', async () => {
    const queue = new PendingQuestions<null, string>();
    const waiting = queue.add('one', null, 1);
    queue.clear();
    await expect(waiting).rejects.toMatchObject({ code: 'ABORTED' });
    expect(queue.list).toEqual([]);
  });

  it('tells its owner about every change', async () => {
    let changes = 0;
    const queue = new PendingQuestions<null, string>(() => changes++);
    void queue.add('one', null, 1);
    expect(changes).toBe(1);
    await queue.drain(async () => 'a');
    // Taken from the queue, then the drain ended.
    expect(changes).toBe(3);
    queue.cancel();
    expect(changes).toBe(3);
  });
});

describe('conversationRows', () => {
  const turn = (at: number) => ({ at });
  const pending = (text: string, at: number, state: PendingQuestion['state']): PendingQuestion => ({ id: at, text, at, payload: null, state, error: null });

  it('is the turns alone when nothing is pending', () => {
    expect(conversationRows([turn(1), turn(2)], [])).toEqual([
      { kind: 'turn', index: 0 },
      { kind: 'turn', index: 1 },
    ]);
  });

  it('places a stopped or failed question where it was asked, and leaves waiting ones out (they go last)', () => {
    const stopped = pending('stopped', 15, 'cancelled');
    const waiting = pending('waiting', 16, 'waiting');
    // Restored turns (1, 2), the stopped question (15), then a question asked after it and answered (20, 21).
    const rows = conversationRows([turn(1), turn(2), turn(20), turn(21)], [stopped, waiting]);
    expect(rows).toEqual([
      { kind: 'turn', index: 0 },
      { kind: 'turn', index: 1 },
      { kind: 'pending', question: stopped },
      { kind: 'turn', index: 2 },
      { kind: 'turn', index: 3 },
    ]);
  });

  it('never puts a stopped question between a question and its reply, though the reply was written after it was asked', () => {
    // Asked together at 10: the first was being answered (its stopped reply is stamped 12) when the others were stopped.
    const user = (at: number) => ({ at, role: 'user' });
    const reply = (at: number) => ({ at, role: 'assistant' });
    const second = pending('second', 10, 'cancelled');
    const third = pending('third', 10, 'cancelled');
    expect(conversationRows([user(1), reply(2), user(10), reply(12), user(30), reply(31)], [second, third])).toEqual([
      { kind: 'turn', index: 0 },
      { kind: 'turn', index: 1 },
      { kind: 'turn', index: 2 },
      { kind: 'turn', index: 3 },
      { kind: 'pending', question: second },
      { kind: 'pending', question: third },
      { kind: 'turn', index: 4 },
      { kind: 'turn', index: 5 },
    ]);
  });

  it('puts a turn first on a tie and keeps the turns in their stored order', () => {
    const failed = pending('failed', 5, 'failed');
    expect(conversationRows([turn(5), turn(3)], [failed])).toEqual([
      { kind: 'turn', index: 0 },
      { kind: 'turn', index: 1 },
      { kind: 'pending', question: failed },
    ]);
  });
});
