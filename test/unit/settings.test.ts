import assert from 'node:assert/strict';
import { DEFAULT_SETTINGS, resolveSettings } from '../../server/src/core/settings';

describe('settings', () => {
  it('fills defaults: 20 KiB threshold, 400 lines and 16 KiB per peek', () => {
    assert.deepEqual(resolveSettings(undefined), DEFAULT_SETTINGS);
    assert.equal(DEFAULT_SETTINGS.thresholdBytes, 20480);
    assert.equal(DEFAULT_SETTINGS.peekMaxLines, 400);
    assert.equal(DEFAULT_SETTINGS.peekMaxBytes, 16384);
  });

  it('refuses a peek cap not below the threshold, saying why', () => {
    assert.throws(() => resolveSettings({ thresholdBytes: 8192, peekMaxBytes: 8192 }), /peekMaxBytes \(8192\) must be below thresholdBytes \(8192\)/);
  });

  it('names the field and its bounds for a bad value', () => {
    assert.throws(() => resolveSettings({ peekMaxLines: 401 }), /peekMaxLines must be a whole number from 1 to 400 \(got 401\)/);
    assert.throws(() => resolveSettings({ thresholdBytes: '20k' }), /thresholdBytes must be a whole number/);
    assert.throws(() => resolveSettings([]), /settings must be an object/);
  });
});
