package dev.elector.docs;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Measured figures in the docs and the results rows they come from.
 *
 * <p>The rule, for contributors:
 *
 * <ul>
 *   <li>A measured figure is quoted as a bold link to the row or section it comes from, in one of
 *       the results files ({@code checks/reliability/RELIABILITY.md}, {@code
 *       benchmarks/RESULTS.md}): {@code [**14 threads**](../benchmarks/RESULTS.md#g-scale-1000)}.
 *       The target is an id written in the row ({@code <a id="g-scale-1000"></a>} in its first
 *       cell) or a heading's anchor.
 *   <li>The check fails when the target is gone, and when the quoted text is not in the target: the
 *       row for an id (a paragraph or list item for an id outside a table), the section for a
 *       heading. Thin and non-breaking spaces, thousands separators and dash kinds do not count. In
 *       a table row, {@code 13928 ms} also matches the cell {@code 13928} of a column whose header
 *       says {@code ms}.
 *   <li>A rounded figure names the row's text in the link title: {@code [**13.9 s**](…#id "13928
 *       ms")}; the title must be in the row and the quote must be the title rounded (ms and s are
 *       converted).
 *   <li>Settings (lease 15 s, renew deadline 10 s, retry 2 s, pool sizes, timeouts) are not
 *       measurements and stay unlinked. So that a measurement cannot be quoted without a link,
 *       every number in README.md and docs/ outside code and figure links whose unit only
 *       measurements have ({@code ms}, {@code MiB}, {@code MB}, {@code %}, {@code requests/s},
 *       {@code calls/s}, {@code cores}) or that is called a {@code median} is reported, unless it
 *       is one of the {@link #SETTINGS settings} listed here.
 * </ul>
 */
final class Figures {
  /** The files figures may link to, relative to the repository root. */
  static final List<String> RESULTS =
      List.of("checks/reliability/RELIABILITY.md", "benchmarks/RESULTS.md");

  /**
   * Numbers with a measurement's unit that are settings or examples, not measurements, as written
   * in the docs (after normalising). Keep it short: a phrase here is never checked.
   */
  static final List<String> SETTINGS =
      List.of(
          "100 ms", // the callback pool's wait before it adds a thread (scaling.md)
          "15 ms", // a lease of 15 read as milliseconds (spring-boot.md)
          "500 ms", // a duration written as an example (retry period)
          "2 cores" // the size of the machine the figures were measured on
          );

  private static final Pattern FIGURE_LINK =
      Pattern.compile("\\[\\*\\*([^\\]]+?)\\*\\*\\]\\(([^)\\s]+)(?:\\s+\"([^\"]*)\")?\\)");
  private static final Pattern ID = Pattern.compile("<a\\s+(?:id|name)=\"([^\"]+)\"\\s*>\\s*</a>");
  private static final Pattern HEADING = Pattern.compile("^(#{1,6})\\s+(.*?)\\s*#*\\s*$");
  private static final Pattern FENCE = Pattern.compile("^\\s*(```+|~~~+).*$");
  private static final Pattern INLINE_CODE = Pattern.compile("`+[^`]*`+");
  private static final Pattern ANY_LINK = Pattern.compile("\\[[^\\]]*\\]\\([^)]*\\)");
  private static final Pattern MEASURED =
      Pattern.compile(
          "(?<![\\w.,])(\\d[\\d,.]*(?:[–-]\\d[\\d,.]*)?)\\s?"
              + "(ms|MiB|MB|%|requests/s|calls/s|cores)(?![\\w/])");
  private static final Pattern NUMBER_AND_UNIT =
      Pattern.compile("^(-?\\d+(?:\\.(\\d+))?)\\s*(.*)$");

  /** A figure link: the quoted text, the target as written, the optional title, its line. */
  record Link(String quote, String target, Optional<String> title, int line) {}

  private Figures() {}

  /** Every figure link of a Markdown file (outside code). */
  static List<Link> links(String content) {
    List<Link> links = new ArrayList<>();
    forEachProseLine(
        content,
        (line, text) -> {
          Matcher m = FIGURE_LINK.matcher(INLINE_CODE.matcher(text).replaceAll(""));
          while (m.find()) {
            links.add(new Link(m.group(1), m.group(2), Optional.ofNullable(m.group(3)), line));
          }
        });
    return links;
  }

  /**
   * Every figure link of {@code docs} names a row or section of a results file that holds it; a
   * bold link into a results file without an anchor is a problem too.
   */
  static List<String> check(Path root, List<Path> docs) {
    List<String> problems = new ArrayList<>();
    Map<Path, String[]> targets = new HashMap<>();
    for (Path doc : docs) {
      String where = root.relativize(doc).toString();
      for (Link link : links(read(doc))) {
        String at = where + ":" + link.line() + ": figure **" + link.quote() + "**";
        int hash = link.target().indexOf('#');
        String path = hash < 0 ? link.target() : link.target().substring(0, hash);
        Path file = doc.getParent().resolve(path).normalize();
        String relative = root.relativize(file).toString().replace('\\', '/');
        if (!RESULTS.contains(relative)) {
          continue; // a bold link elsewhere is not a figure link
        }
        if (hash < 0) {
          problems.add(at + " links " + relative + " without naming a row; add #ID of its row");
          continue;
        }
        String anchor = link.target().substring(hash + 1);
        if (!Files.isRegularFile(file)) {
          problems.add(at + " links " + relative + ", which does not exist");
          continue;
        }
        String[] lines = targets.computeIfAbsent(file, f -> read(f).split("\n", -1));
        Optional<Scope> scope = scope(lines, anchor);
        if (scope.isEmpty()) {
          problems.add(
              at
                  + ": "
                  + relative
                  + " has no row or heading #"
                  + anchor
                  + " any more; point the link at the row the figure now comes from");
          continue;
        }
        String expected = link.title().orElse(link.quote());
        if (!scope.get().holds(expected)) {
          problems.add(
              at
                  + ": "
                  + relative
                  + "#"
                  + anchor
                  + " does not say "
                  + (link.title().isPresent() ? "\"" + expected + "\" (the link title)" : "it")
                  + "; it says: "
                  + abbreviate(scope.get().text())
                  + "; quote the row as it is now");
          continue;
        }
        if (link.title().isPresent()) {
          roundingProblem(link.quote(), link.title().get())
              .ifPresent(p -> problems.add(at + ": " + p));
        }
      }
    }
    return problems;
  }

  /**
   * Numbers in the docs that look measured but are quoted without a figure link: units only
   * measurements have, outside code, links and the listed settings.
   */
  static List<String> unlinked(Path root, List<Path> docs) {
    List<String> problems = new ArrayList<>();
    for (Path doc : docs) {
      String where = root.relativize(doc).toString();
      forEachProseLine(
          read(doc),
          (line, text) -> {
            String prose =
                normalise(
                    ANY_LINK.matcher(INLINE_CODE.matcher(text).replaceAll("")).replaceAll(""));
            List<String> found = new ArrayList<>();
            Matcher m = MEASURED.matcher(prose);
            while (m.find()) {
              found.add(m.group());
            }
            for (String figure : found) {
              if (SETTINGS.contains(figure.strip())) {
                continue;
              }
              problems.add(
                  where
                      + ":"
                      + line
                      + ": \""
                      + figure.strip()
                      + "\" looks measured but has no figure link; write it as [**"
                      + figure.strip()
                      + "**](PATH#ROW) to the results row it comes from, or, if it is a setting,"
                      + " add it to Figures.SETTINGS");
            }
          });
    }
    return problems;
  }

  /** The text a figure link may name: one row, paragraph or section of a results file. */
  record Scope(String text, Optional<String> header) {
    boolean holds(String figure) {
      String wanted = normalise(figure);
      if (contains(normalise(text), wanted)) {
        return true;
      }
      // A table cell holding the number, in a column whose header gives the unit.
      Matcher m = NUMBER_AND_UNIT.matcher(wanted);
      if (header.isEmpty() || !m.matches() || m.group(3).isEmpty()) {
        return false;
      }
      List<String> cells = cells(text);
      List<String> heads = cells(header.get());
      for (int i = 0; i < cells.size() && i < heads.size(); i++) {
        if (normalise(cells.get(i)).equals(m.group(1))
            && Arrays.asList(normalise(heads.get(i)).split("[\\s()]+")).contains(m.group(3))) {
          return true;
        }
      }
      return false;
    }
  }

  /** The row, paragraph or section that an anchor names, if the file still has it. */
  static Optional<Scope> scope(String[] lines, String anchor) {
    for (int i = 0; i < lines.length; i++) {
      Matcher id = ID.matcher(lines[i]);
      while (id.find()) {
        if (!id.group(1).equals(anchor)) {
          continue;
        }
        if (lines[i].strip().startsWith("|")) {
          int first = i;
          while (first > 0 && lines[first - 1].strip().startsWith("|")) {
            first--;
          }
          return Optional.of(new Scope(lines[i], Optional.of(lines[first])));
        }
        int start = i;
        int end = i;
        while (start > 0 && !lines[start - 1].isBlank() && !lines[start].strip().startsWith("- ")) {
          start--;
        }
        while (end + 1 < lines.length
            && !lines[end + 1].isBlank()
            && !lines[end + 1].strip().startsWith("- ")) {
          end++;
        }
        return Optional.of(
            new Scope(
                String.join(" ", Arrays.asList(lines).subList(start, end + 1)), Optional.empty()));
      }
    }
    Map<String, Integer> seen = new HashMap<>();
    for (int i = 0; i < lines.length; i++) {
      Matcher heading = HEADING.matcher(lines[i]);
      if (!heading.matches()) {
        continue;
      }
      String slug = Markdown.slug(heading.group(2));
      int n = seen.merge(slug, 1, Integer::sum);
      if (!(n == 1 ? slug : slug + "-" + (n - 1)).equals(anchor)) {
        continue;
      }
      int level = heading.group(1).length();
      int end = i + 1;
      while (end < lines.length) {
        Matcher next = HEADING.matcher(lines[end]);
        if (next.matches() && next.group(1).length() <= level) {
          break;
        }
        end++;
      }
      return Optional.of(
          new Scope(String.join("\n", Arrays.asList(lines).subList(i, end)), Optional.empty()));
    }
    return Optional.empty();
  }

  /**
   * Whether {@code quote} is {@code exact} rounded: the same unit (or ms and s), within half a unit
   * of the quote's last digit.
   */
  static Optional<String> roundingProblem(String quote, String exact) {
    Matcher q = NUMBER_AND_UNIT.matcher(normalise(quote));
    Matcher e = NUMBER_AND_UNIT.matcher(normalise(exact));
    if (!q.matches() || !e.matches()) {
      return Optional.of(
          "a link title is for a rounded figure: both the quote and the title must be a number"
              + " with a unit, like [**13.9 s**](…#id \"13928 ms\")");
    }
    double quoted = Double.parseDouble(q.group(1));
    double value = Double.parseDouble(e.group(1));
    String qUnit = q.group(3).strip();
    String eUnit = e.group(3).strip();
    if (qUnit.equals("s") && eUnit.equals("ms")) {
      value /= 1000;
    } else if (qUnit.equals("ms") && eUnit.equals("s")) {
      value *= 1000;
    } else if (!qUnit.equals(eUnit)) {
      return Optional.of("is in " + qUnit + " but its title \"" + exact + "\" in " + eUnit);
    }
    int decimals = q.group(2) == null ? 0 : q.group(2).length();
    double half = 0.5 * Math.pow(10, -decimals) + 1e-9;
    if (Math.abs(quoted - value) > half) {
      return Optional.of(
          "is not \"" + exact + "\" (the link title, as the row says it) rounded; requote it");
    }
    return Optional.empty();
  }

  /** Spaces of every width as one space, no thousands separators or bold, one kind of dash. */
  static String normalise(String text) {
    return text.replaceAll("(?<=\\d)[\\u2009\\u202f](?=\\d{3})", "")
        .replaceAll("[\\u00a0\\u2009\\u202f\\s]+", " ")
        .replace("**", "")
        .replaceAll("(?<=\\d),(?=\\d{3})", "")
        .replaceAll("[–—]", "-")
        .strip();
  }

  private static boolean contains(String text, String figure) {
    return Pattern.compile("(?<![\\d.])" + Pattern.quote(figure) + "(?![\\d])")
        .matcher(text)
        .find();
  }

  private static List<String> cells(String row) {
    String s = row.strip();
    if (s.startsWith("|")) {
      s = s.substring(1);
    }
    if (s.endsWith("|")) {
      s = s.substring(0, s.length() - 1);
    }
    return Arrays.stream(s.split("\\|", -1))
        .map(c -> ID.matcher(c).replaceAll("").strip())
        .toList();
  }

  private static String abbreviate(String text) {
    String t = normalise(ID.matcher(text).replaceAll(""));
    return t.length() > 300 ? t.substring(0, 300) + "…" : t;
  }

  private interface LineVisitor {
    void visit(int line, String text);
  }

  private static void forEachProseLine(String content, LineVisitor visitor) {
    String[] lines = content.split("\n", -1);
    String fence = null;
    for (int i = 0; i < lines.length; i++) {
      Matcher m = FENCE.matcher(lines[i]);
      if (m.matches()) {
        if (fence == null) {
          fence = m.group(1);
        } else if (lines[i].strip().startsWith(fence)) {
          fence = null;
        }
        continue;
      }
      if (fence == null && !lines[i].strip().startsWith("<!--")) {
        visitor.visit(i + 1, lines[i]);
      }
    }
  }

  private static String read(Path file) {
    try {
      return Files.readString(file);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
