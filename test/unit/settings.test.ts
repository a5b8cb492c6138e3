import assert from 'node:assert/strict';
import { DEFAULT_SETTINGS, resolveSettings } from '../../shared/settings';

describe('settings', () => {
  it('fills defaults: 20 KiB threshold, 400 lines and 16 KiB per peek', () => {
    assert.deepEqual(resolveSettings(undefined), DEFAULT_SETTINGS);
    assert.equal(DEFAULT_SETTINGS.thresholdBytes, 20480);
    assert.equal(DEFAULT_SETTINGS.peekMaxLines, 400);
    assert.equal(DEFAULT_SETTINGS.peekMaxBytes, 16384);
  });

  it('refuses a peek cap not below the threshold, saying why', () => {
    assert.throws(
      () => resolveSettings({ thresholdBytes: 8192, peekMaxBytes: 8192 }),
      /settings\.peekMaxBytes \(8192\) must be below settings\.thresholdBytes \(8192\)/,
    );
  });

  it('names the field and its bounds for a bad value', () => {
    assert.throws(
      () => resolveSettings({ peekMaxLines: 401 }),
      /peekMaxLines must be a whole number from 1 to 400 \(got 401\)/,
    );
    assert.throws(() => resolveSettings({ thresholdBytes: '20k' }), /thresholdBytes must be a whole number/);
    assert.throws(() => resolveSettings([]), /settings must be an object \(got an array\)/);
    assert.throws(
      () => resolveSettings({ tresholdBytes: 30000 }),
      /settings\.tresholdBytes is not a known field \(did you mean thresholdBytes\?\)/,
    );
  });
});

describe('settings for landmarks and the history policy', () => {
  it('takes regular expressions per landmark kind, and names a bad one', () => {
    assert.deepEqual(resolveSettings({ landmarkPatterns: { error: '^E: ' } }).landmarkPatterns, { error: '^E: ' });
    assert.throws(
      () => resolveSettings({ landmarkPatterns: { error: '(' } }),
      /landmarkPatterns.error is not a valid regular expression/,
    );
    assert.throws(
      () => resolveSettings({ landmarkPatterns: { oops: 'x' } }),
      /landmarkPatterns\.oops is not a known field \(known: error, failure, warning, trace\)/,
    );
  });

  it('takes a default history policy, and names a bad field', () => {
    assert.deepEqual(resolveSettings({ history: { keepRounds: 2 } }).history, {
      keepRounds: 2,
      inlineMaxBytes: 1024,
      inputMaxBytes: 1024,
      exemptTools: [],
    });
    assert.throws(
      () => resolveSettings({ history: { inlineMaxBytes: -5 } }),
      /history\.inlineMaxBytes must be a whole number from 0 to 1048576 \(got -5\)/,
    );
  });
});
