/** The human titles of the collections of spec 2.2, as a person would write them. */
import { describe, expect, it } from 'vitest';
import { schemeTitle } from '../../src/export/scheme-title.js';

describe('schemeTitle', () => {
  it('splits the run-together collection names into words', () => {
    expect(schemeTitle('measuredquantityunits')).toBe('Measured quantity units');
    expect(schemeTitle('actioncategories')).toBe('Action categories');
    expect(schemeTitle('globalprovenances')).toBe('Global provenances');
    expect(schemeTitle('samplingmedia')).toBe('Sampling media');
    expect(schemeTitle('equipmentstatus')).toBe('Equipment status');
    expect(schemeTitle('contactroles')).toBe('Contact roles');
    expect(schemeTitle('units')).toBe('Units');
  });

  it('names community variants, and keeps a name of other words as it is', () => {
    expect(schemeTitle('siteusages-communities')).toBe('Site usages (community variants)');
    expect(schemeTitle('communities')).toBe('Communities');
    expect(schemeTitle('instrument_kinds')).toBe('Instrument kinds');
    expect(schemeTitle('-communities')).toBe('Communities');
    expect(schemeTitle('-')).toBe('-');
  });
});
