import { describe, expect, it } from 'vitest';
import { CHECK_IDS, checkInfoSchemas } from './catalogue.js';

describe("the catalogue's typed info", () => {
  it('declares info only for checks of the catalogue', () => {
    const ids: readonly string[] = CHECK_IDS;
    expect(Object.keys(checkInfoSchemas()).filter((id) => !ids.includes(id))).toEqual([]);
  });
});
