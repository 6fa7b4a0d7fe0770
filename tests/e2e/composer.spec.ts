/**
 * The composer on a 360 px phone: the question box takes at least 60 % of its row in both
 * interfaces, and the way to a person stays one tap away beside it (an icon button with its full
 * name as its accessible label).
 */
import { expect, test } from '@playwright/test';

for (const lang of ['he', 'en'] as const) {
  test(`at 360 px (${lang}) the input takes at least 60 % of the composer's row; the representative is one tap away`, async ({ page }) => {
    await page.setViewportSize({ width: 360, height: 740 });
    await page.goto(`/?lang=${lang}`);
    await expect(page.locator('harel-chat [part~="status"]')).toHaveAttribute('data-state', 'ready', { timeout: 30_000 });
    const composer = page.locator('harel-chat [part~="composer"]');
    const input = composer.locator('[part~="input"]');
    const row = await composer.boundingBox();
    const box = await input.boundingBox();
    expect(row && box).toBeTruthy();
    expect(box!.width / row!.width, `input ${box!.width} px of a ${row!.width} px row`).toBeGreaterThanOrEqual(0.6);
    test.info().annotations.push({ type: 'ratio', description: `${lang}: ${box!.width.toFixed(0)} / ${row!.width.toFixed(0)} px` });
    // Every control of the row sits on the one line (nothing wrapped under the input).
    for (const control of await composer.locator('button:visible').all()) {
      const b = (await control.boundingBox())!;
      expect(b.y + b.height).toBeLessThanOrEqual(box!.y + box!.height + 1);
      expect(b.y).toBeGreaterThanOrEqual(box!.y - 1);
    }

    const escalate = composer.locator('[part~="escalate-button"]');
    await expect(escalate).toBeVisible();
    await expect(escalate).toHaveAccessibleName(lang === 'he' ? 'שיחה עם נציג' : 'Talk to a representative');
    const size = (await escalate.boundingBox())!;
    expect(Math.min(size.width, size.height), 'a target a thumb can hit').toBeGreaterThanOrEqual(32);
    await escalate.click();
    await expect(page.locator('harel-chat [part~="contact-panel"]')).toBeVisible();
  });
}
