import { describe, expect, it } from 'vitest';
import type { Admission, Report } from '../report/schema.js';
import { sampleReport } from '../testing/sample-report.js';
import { compareReports } from './compare.js';
import { trend } from './trend.js';
import { trendHtml } from './trend-html.js';

const admitted = (accepted: number, startedAt: string): Report => {
  const a: Admission = {
    plan: 'pro',
    window: 'minute',
    accepted,
    sold: 300,
    excessPercent: Math.round(((accepted - 300) / 300) * 1000) / 10,
    tolerancePercent: 5,
    atLeast: false,
    within: accepted <= 315,
  };
  return { ...sampleReport({ startedAt }), admission: [a] };
};

describe("compare and trend follow each plan's admission", () => {
  it('compare names the admission that changed between two nights', () => {
    const c = compareReports(admitted(309, '2031-05-01T02:00:00.000Z'), admitted(330, '2031-05-02T02:00:00.000Z'));
    const pro = c.contract.find((p) => p.plan === 'pro')!;
    expect(pro.drifts).toContainEqual({
      field: 'admission',
      baseline: '309/min against 300, +3 %, within the declared 5 %',
      current: '330/min against 300, +10 %, beyond the declared 5 %',
    });
  });

  it('trend puts each run’s accepted count against the figure sold in a table', () => {
    const files = [309, 330].map((n, i) => {
      const r = admitted(n, `2031-05-0${i + 1}T02:00:00.000Z`);
      return { path: `night-${i}/report.json`, text: JSON.stringify(r) };
    });
    const page = trend(files);
    expect(page.groups[0]!.admission).toEqual([{ plan: 'pro', sold: [300, 300], accepted: [309, 330] }]);
    expect(trendHtml(page)).toContain('<td class="num">330 / 300</td>');
  });
});
