/**
 * Counted nouns for the CLI's messages, in one place: "1 skill",
 * "2 skills", "0 skills". A noun whose plural is not `<noun>s` gives it.
 */
export function plural(count: number, noun: string, nouns = `${noun}s`): string {
  return `${count} ${count === 1 ? noun : nouns}`
}
