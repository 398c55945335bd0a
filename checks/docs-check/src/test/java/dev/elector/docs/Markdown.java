package dev.elector.docs;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What the checks need of one Markdown file: its fenced code blocks (with the HTML comment on the
 * line before each), its links outside code, and the anchors its headings get on a code host.
 */
record Markdown(Path file, List<Fence> fences, List<Link> links, Set<String> anchors) {

  /** A fenced block: its language, the comment on the line before the fence, and its text. */
  record Fence(String language, int line, Optional<String> comment, String text) {}

  /** A link target as written, with the line it is on. */
  record Link(String target, int line) {}

  private static final Pattern FENCE = Pattern.compile("^(\\s*)(```+|~~~+)\\s*([\\w+-]*).*$");
  private static final Pattern COMMENT = Pattern.compile("^\\s*<!--\\s*(.*?)\\s*-->\\s*$");
  private static final Pattern HEADING = Pattern.compile("^(#{1,6})\\s+(.*?)\\s*#*\\s*$");
  // [text](target) and ![alt](target), not inside inline code; the target ends at a space or ')'.
  private static final Pattern LINK =
      Pattern.compile("!?\\[[^\\]]*\\]\\(([^)\\s]+)(?:\\s+\"[^\"]*\")?\\)");
  private static final Pattern INLINE_CODE = Pattern.compile("`+[^`]*`+");
  private static final Pattern HTML_ANCHOR = Pattern.compile("<a\\s+(?:name|id)=\"([^\"]+)\"");

  static Markdown read(Path file) {
    try {
      return parse(file, Files.readString(file));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static Markdown parse(Path file, String content) {
    List<Fence> fences = new ArrayList<>();
    List<Link> links = new ArrayList<>();
    Set<String> anchors = new HashSet<>();
    Map<String, Integer> seen = new HashMap<>();
    String[] lines = content.split("\n", -1);
    for (int i = 0; i < lines.length; i++) {
      Matcher fence = FENCE.matcher(lines[i]);
      if (fence.matches()) {
        String marker = fence.group(2);
        String indent = fence.group(1);
        int start = i;
        StringBuilder text = new StringBuilder();
        for (i++; i < lines.length && !lines[i].strip().startsWith(marker); i++) {
          String line = lines[i];
          text.append(line.startsWith(indent) ? line.substring(indent.length()) : line.strip())
              .append('\n');
        }
        fences.add(
            new Fence(fence.group(3), start + 1, commentBefore(lines, start), text.toString()));
        continue;
      }
      Matcher heading = HEADING.matcher(lines[i]);
      if (heading.matches()) {
        String slug = slug(heading.group(2));
        int n = seen.merge(slug, 1, Integer::sum);
        anchors.add(n == 1 ? slug : slug + "-" + (n - 1));
      }
      Matcher html = HTML_ANCHOR.matcher(lines[i]);
      while (html.find()) {
        anchors.add(html.group(1));
      }
      Matcher link = LINK.matcher(INLINE_CODE.matcher(lines[i]).replaceAll(""));
      while (link.find()) {
        links.add(new Link(link.group(1), i + 1));
      }
    }
    return new Markdown(file, fences, links, anchors);
  }

  private static Optional<String> commentBefore(String[] lines, int fenceLine) {
    if (fenceLine == 0) {
      return Optional.empty();
    }
    Matcher comment = COMMENT.matcher(lines[fenceLine - 1]);
    return comment.matches() ? Optional.of(comment.group(1)) : Optional.empty();
  }

  /** The anchor a code host gives a heading: lower case, punctuation dropped, spaces as '-'. */
  static String slug(String heading) {
    String text = heading.replaceAll("\\[([^\\]]*)\\]\\([^)]*\\)", "$1"); // a link: its text
    return text.toLowerCase(Locale.ROOT).replaceAll("[^\\p{L}\\p{N} _-]", "").replace(' ', '-');
  }
}
