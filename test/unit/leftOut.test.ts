import assert from 'node:assert/strict';
import { kindWord, leftOutSentence } from '../../shared/leftOut';

describe('what an import left out, in words', () => {
  it('names kinds by plain words, most first, and counts the ones with none: never an agent’s own kind name', () => {
    const sentence = leftOutSentence({
      'atis-latch': 63,
      'progress/hook_progress': 105,
      'queue-operation': 54,
      'cost-state': 25,
      'api-request-shape': 2,
    });
    assert.equal(
      sentence,
      '249 records beside the conversation were left out (hook progress, queued prompts, cost records and 65 others)',
    );
    assert.doesNotMatch(sentence!, /atis|latch|api-request/);
  });

  it('says a short list whole, and a list of no plain word as the agent’s bookkeeping', () => {
    assert.equal(
      leftOutSentence({ 'event_msg/task_started': 2, 'response_item/web_search_call': 1 }),
      '3 records beside the conversation were left out (turn markers and web searches)',
    );
    assert.equal(
      leftOutSentence({ 'atis-latch': 1 }),
      '1 record beside the conversation was left out (the agent’s own bookkeeping)',
    );
    assert.equal(leftOutSentence({}), undefined);
    assert.equal(leftOutSentence({ progress: 0 }), undefined);
  });

  it('takes a kind by its whole name or its last part', () => {
    assert.equal(kindWord('hook.start'), 'hook runs');
    assert.equal(kindWord('attachment/queued_command'), 'queued prompts');
    assert.equal(kindWord('atis-latch'), undefined);
  });
});
