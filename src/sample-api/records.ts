/**
 * The records of the sample data set, as built and as served: shared by the data set (sample-data.ts) and the edits
 * of a later release (release.ts), which would otherwise import each other.
 */
export type AttributeValue = string | null;

/** A to-one relationship holds a target id or null; a to-many one a list of ids. Links-only ones are absent. */
export type RelationshipValue = string | null | readonly string[];

export interface SampleRecord {
  /** Numeric text. */
  readonly id: string;
  /** Exactly the collection's `attributes`, in that order. */
  readonly attributes: Readonly<Record<string, AttributeValue>>;
  /** One entry per `to-one`/`to-many` relationship of the collection; targets live in the relationship's `target`. */
  readonly relationships: Readonly<Record<string, RelationshipValue>>;
}

/** A record while the data set is built (release.ts edits these). */
export type MutableRecord = {
  id: string;
  attributes: Record<string, AttributeValue>;
  relationships: Record<string, RelationshipValue>;
};
