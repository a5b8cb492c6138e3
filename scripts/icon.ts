/**
 * Renders the Marketplace icon (`media/icon.png`, 256 × 256) from `media/icon.svg` in Chromium:
 * the gallery takes a PNG only. Run it after changing the SVG (`npm run icon`); the PNG is committed.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { CHROMIUM, ROOT } from './tools';

const SIZE = 256;

async function main(): Promise<void> {
  const svg = readFileSync(join(ROOT, 'media', 'icon.svg'), 'utf8');
  const browser = await chromium.launch({ executablePath: CHROMIUM });
  try {
    const page = await browser.newPage({ viewport: { width: SIZE, height: SIZE } });
    await page.setContent(
      `<html><body style="margin:0;background:transparent">${svg.replace('<svg ', `<svg style="display:block" `)}</body></html>`,
    );
    const png = await page.locator('svg').screenshot({ omitBackground: true });
    writeFileSync(join(ROOT, 'media', 'icon.png'), png);
    console.log(`media/icon.png: ${SIZE} × ${SIZE}, ${png.length} bytes`);
  } finally {
    await browser.close();
  }
}

void main();
