// What a person sees as broken layout at the page's width, measured in the browser: the page scrolling
// sideways, something sticking out of the screen, text cut short by its box, an input narrower than
// its value or placeholder.
import type { Page } from "playwright-core";

/**
 * The layout problems of the page as it stands, one line each (empty when it fits):
 * - the document wider than the viewport (the page scrolls sideways);
 * - an element crossing the viewport's left or right edge. Content inside a container that scrolls
 *   sideways (a wide table in its own box) is reached by scrolling: only the container must fit.
 *   Elements entirely off screen (the closed navigation drawer) are not checked against the edges;
 * - text cut by its own box: an element that hides its overflow (or ellipsizes) with content wider
 *   than itself, unless it ellipsizes on purpose and its `title` holds the whole text;
 * - an input whose value, or placeholder while empty, is wider than the room it has (a date input's
 *   "mm/dd/yyyy" included), and a select whose chosen label is cut.
 */
export async function layoutProblems(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const width = document.documentElement.clientWidth;
    const problems: string[] = [];
    if (document.documentElement.scrollWidth > width) {
      problems.push(`the document is ${document.documentElement.scrollWidth} px wide in a ${width} px viewport`);
    }
    const name = (element: Element) => {
      const label = (element.getAttribute("aria-label") ?? element.getAttribute("placeholder") ?? element.textContent ?? "").trim().slice(0, 40);
      return `<${element.tagName.toLowerCase()} class="${element.className.toString().slice(0, 60)}"> "${label}"`;
    };
    const scrollsSideways = (element: Element) => ["auto", "scroll"].includes(getComputedStyle(element).overflowX);
    const inScroller = (element: Element) => {
      for (let parent = element.parentElement; parent && parent !== document.body; parent = parent.parentElement) {
        if (scrollsSideways(parent)) return true;
      }
      return false;
    };
    const canvas = document.createElement("canvas").getContext("2d");
    /** The width of the text in the element's font. */
    const textWidth = (element: Element, text: string) => {
      if (!canvas) return 0;
      const style = getComputedStyle(element);
      canvas.font = `${style.fontStyle} ${style.fontWeight} ${style.fontSize} ${style.fontFamily}`;
      return canvas.measureText(text).width;
    };
    /** The room for text inside an input: its inner width less its padding. */
    const contentWidth = (element: HTMLElement) => {
      const style = getComputedStyle(element);
      return element.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
    };
    for (const element of document.body.querySelectorAll("*")) {
      const style = getComputedStyle(element);
      if (style.display === "none" || style.visibility === "hidden") continue;
      const rect = element.getBoundingClientRect();
      if (rect.width === 0 || rect.height === 0) continue;
      const onScreen = rect.right > 0 && rect.left < width;
      if (onScreen && !inScroller(element) && (rect.right > width + 0.5 || rect.left < -0.5)) {
        problems.push(`${name(element)} spans ${Math.round(rect.left)}..${Math.round(rect.right)} px`);
      }
      if (element instanceof HTMLInputElement || element instanceof HTMLTextAreaElement) {
        if (["checkbox", "radio", "hidden", "file", "range", "color"].includes(element.type)) continue;
        const room = contentWidth(element);
        // A date input draws its fields ("mm/dd/yyyy" while empty) and a calendar button inside the box.
        const shown =
          element.type === "date"
            ? textWidth(element, element.value ? "00/00/0000" : "mm/dd/yyyy") + 22
            : textWidth(element, element.value || element.placeholder);
        if (element.scrollWidth > element.clientWidth + 1 || shown > room + 1) {
          problems.push(`${name(element)} is cut: ${Math.ceil(Math.max(shown, element.scrollWidth - element.clientWidth + room))} px of text in ${Math.floor(room)} px`);
        }
        continue;
      }
      const clips = ["hidden", "clip"].includes(style.overflowX) || style.textOverflow === "ellipsis";
      const text = (element.textContent ?? "").trim();
      if (clips && !scrollsSideways(element) && element.scrollWidth > element.clientWidth + 1 && text !== "") {
        // An ellipsis on purpose, with the whole text a hover away, is a choice, not a cut.
        const titled = style.textOverflow === "ellipsis" && (element.closest("[title]")?.getAttribute("title") ?? "").includes(text);
        if (!titled) problems.push(`${name(element)} is cut: ${element.scrollWidth} px of content in ${element.clientWidth} px`);
      }
    }
    return problems;
  });
}
