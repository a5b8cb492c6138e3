/** The figures people read: sizes in binary units, savings that never round to a lie, counts with their noun. */
import assert from 'node:assert/strict';
import { formatAge, formatBytes, formatCount, formatSaving } from '../../shared/format';

describe('format', () => {
  it('names binary sizes as they are: KiB, MiB, GiB', () => {
    assert.equal(formatBytes(512), '512 B');
    assert.equal(formatBytes(20 * 1024), '20 KiB');
    assert.equal(formatBytes(1536), '1.5 KiB');
    assert.equal(formatBytes(150 * 1024 * 1024), '150 MiB');
    assert.equal(formatBytes(2 ** 31), '2.0 GiB');
  });

  it('says a saving near the ends with a decimal, and ±0 % only for equal figures', () => {
    assert.equal(formatSaving(272, 114_000), '−99.8 %', 'not −100 %: something was sent');
    assert.equal(formatSaving(0, 114_000), '−99.9 %', 'capped short of 100');
    assert.equal(formatSaving(997, 1000), '−0.3 %', 'not −0 %');
    assert.equal(formatSaving(130, 1000), '−87 %');
    assert.equal(formatSaving(1000, 1000), '±0 %');
    assert.equal(formatSaving(1200, 1000), '+20 %', 'more sent than the baseline says so');
    assert.equal(formatSaving(5, 0), '±0 %');
    assert.equal(formatSaving(99_999, 100_000), '±0 %', 'never −0.0 %');
  });

  it('counts with the noun in the right number', () => {
    assert.equal(formatCount(1, 'retained value'), '1 retained value');
    assert.equal(formatCount(2, 'retained value'), '2 retained values');
    assert.equal(formatCount(3400, 'line'), '3,400 lines');
  });

  it('says an age from a time', () => {
    const now = Date.parse('2026-12-01T12:00:00Z');
    assert.equal(formatAge('2026-12-01T11:59:30Z', now), '30s ago');
    assert.equal(formatAge('2026-02-03T12:00:00Z', now), '301d ago');
  });
});
