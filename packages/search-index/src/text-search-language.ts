import { stemmer as arabic } from "@orama/stemmers/arabic";
import { stemmer as danish } from "@orama/stemmers/danish";
import { stemmer as dutch } from "@orama/stemmers/dutch";
import { stemmer as english } from "@orama/stemmers/english";
import { stemmer as finnish } from "@orama/stemmers/finnish";
import { stemmer as french } from "@orama/stemmers/french";
import { stemmer as german } from "@orama/stemmers/german";
import { stemmer as greek } from "@orama/stemmers/greek";
import { stemmer as hungarian } from "@orama/stemmers/hungarian";
import { stemmer as italian } from "@orama/stemmers/italian";
import { stemmer as norwegian } from "@orama/stemmers/norwegian";
import { stemmer as portuguese } from "@orama/stemmers/portuguese";
import { stemmer as romanian } from "@orama/stemmers/romanian";
import { stemmer as russian } from "@orama/stemmers/russian";
import { stemmer as spanish } from "@orama/stemmers/spanish";
import { stemmer as swedish } from "@orama/stemmers/swedish";
import { stemmer as tamil } from "@orama/stemmers/tamil";
import { stemmer as turkish } from "@orama/stemmers/turkish";
import { SearchIndexError } from "./search-index-error";

export const DEFAULT_TEXT_SEARCH_CONFIG = "english";

/** How a generation's `text_search_config` tokenizes, for the FTS index and for snippet highlighting. */
export interface TextSearchLanguage {
  textSearchConfig: string;
  /** Options of LanceDB's FTS index (its tokenizer's language, stemming, stop words). */
  ftsOptions: { language: string; stem: boolean; removeStopWords: boolean };
  /** Stems one lower-cased word the way highlighting compares words (identity for `simple`). */
  stem: (word: string) => string;
  /**
   * Words a query ignores, as PostgreSQL's dictionary did (`english`: its stop words; other
   * languages and `simple`: none). The index keeps them (see resolveTextSearchLanguage).
   */
  stopWords: ReadonlySet<string>;
}

/** English stop words as PostgreSQL's `english` configuration drops them (the Snowball list). */
const ENGLISH_STOP_WORDS: ReadonlySet<string> = new Set(
  (
    "i me my myself we our ours ourselves you your yours yourself yourselves he him his himself she her hers herself " +
    "it its itself they them their theirs themselves what which who whom this that these those am is are was were be " +
    "been being have has had having do does did doing a an the and but if or because as until while of at by for with " +
    "about against between into through during before after above below to from up down in out on off over under again " +
    "further then once here there when where why how all any both each few more most other some such no nor not only own " +
    "same so than too very s t can will just don should now"
  ).split(" "),
);
const NO_STOP_WORDS: ReadonlySet<string> = new Set();
/** `simple`'s stemmer: one function for the process, so normalizeWord's memo of it is shared. */
const NO_STEM = (word: string): string => word;

/**
 * The PostgreSQL text-search configurations the index can honour: LanceDB's tokenizer knows exactly
 * these stemming languages (any other name aborts the native module, so it must never reach it).
 */
const STEMMERS: Record<string, { language: string; stem: (word: string) => string }> = {
  arabic: { language: "Arabic", stem: arabic },
  danish: { language: "Danish", stem: danish },
  dutch: { language: "Dutch", stem: dutch },
  english: { language: "English", stem: english },
  finnish: { language: "Finnish", stem: finnish },
  french: { language: "French", stem: french },
  german: { language: "German", stem: german },
  greek: { language: "Greek", stem: greek },
  hungarian: { language: "Hungarian", stem: hungarian },
  italian: { language: "Italian", stem: italian },
  norwegian: { language: "Norwegian", stem: norwegian },
  portuguese: { language: "Portuguese", stem: portuguese },
  romanian: { language: "Romanian", stem: romanian },
  russian: { language: "Russian", stem: russian },
  spanish: { language: "Spanish", stem: spanish },
  swedish: { language: "Swedish", stem: swedish },
  tamil: { language: "Tamil", stem: tamil },
  turkish: { language: "Turkish", stem: turkish },
};

export const SUPPORTED_TEXT_SEARCH_CONFIGS: readonly string[] = ["simple", ...Object.keys(STEMMERS)];

/**
 * Maps a text-search configuration name to the index's tokenizer. `simple` lower-cases only, as
 * PostgreSQL's `simple` does; a language also stems. Stop words are kept in every language: a query
 * word is a required clause of its own (see searchDocuments), and a stop word dropped by the
 * tokenizer would make that clause match nothing.
 * Anything else is refused with UNSUPPORTED_TEXT_SEARCH_CONFIG (a 422 at rebuild).
 */
export function resolveTextSearchLanguage(textSearchConfig: string): TextSearchLanguage {
  if (textSearchConfig === "simple") {
    return {
      textSearchConfig,
      ftsOptions: { language: "English", stem: false, removeStopWords: false },
      stem: NO_STEM,
      stopWords: NO_STOP_WORDS,
    };
  }
  const entry = Object.hasOwn(STEMMERS, textSearchConfig) ? STEMMERS[textSearchConfig] : undefined;
  if (entry === undefined) {
    throw new SearchIndexError(
      "UNSUPPORTED_TEXT_SEARCH_CONFIG",
      `The search index does not support text_search_config '${textSearchConfig}'; supported: ${SUPPORTED_TEXT_SEARCH_CONFIGS.join(", ")}.`,
    );
  }
  return {
    textSearchConfig,
    ftsOptions: { language: entry.language, stem: true, removeStopWords: false },
    stem: entry.stem,
    stopWords: textSearchConfig === "english" ? ENGLISH_STOP_WORDS : NO_STOP_WORDS,
  };
}
