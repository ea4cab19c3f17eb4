import { describe, expect, it } from 'vitest';
import { findAll, parseXml, XmlError } from './xml.js';

describe('parseXml (test helper)', () => {
  it('reads elements, attributes, text and references', () => {
    const doc = parseXml(
      '<?xml version="1.0" encoding="UTF-8"?>\n<a x="1 &amp; 2&#10;3"><b>t &lt;&#x41;&gt;</b><b/><![CDATA[<raw>]]></a>\n',
    );
    expect(doc.name).toBe('a');
    expect(doc.attrs.x).toBe('1 & 2\n3');
    expect(findAll(doc, 'b').map((b) => b.text)).toEqual(['t <A>', '']);
    expect(doc.text).toBe('<raw>');
  });

  it.each([
    ['unclosed element', '<a><b></a>'],
    ['mismatched tag', '<a></b>'],
    ['bare ampersand', '<a>1 & 2</a>'],
    ['unknown entity', '<a>&nbsp;</a>'],
    ['< in attribute', '<a x="<"/>'],
    ['unquoted attribute', '<a x=1/>'],
    ['repeated attribute', '<a x="1" x="2"/>'],
    ['forbidden character', '<a>\u0000</a>'],
    ['reference to a forbidden character', '<a>&#0;</a>'],
    ['two roots', '<a/><b/>'],
    ['text outside the root', '<a/>x'],
    [']]> in text', '<a>]]></a>'],
    ['no root', '   '],
  ])('rejects %s', (_what, src) => {
    expect(() => parseXml(src)).toThrow(XmlError);
  });
});
