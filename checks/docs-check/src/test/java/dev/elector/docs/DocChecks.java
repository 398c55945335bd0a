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
import java.util.stream.Collectors;

/**
 * The checks that keep the docs true, each returning its problems as lines that name the file, the
 * line, what is wrong and how to fix it. An empty list means the docs pass.
 */
final class DocChecks {
  private static final Pattern SNIPPET =
      Pattern.compile("snippet:\\s*([\\w/.-]+\\.java)#([\\w-]+)");

  private DocChecks() {}

  /**
   * Every {@code java} block is preceded by {@code <!-- snippet: FILE#REGION -->} and equals that
   * region of {@code FILE} under {@code snippets} (indentation aside).
   */
  static List<String> snippets(Path root, List<Markdown> docs, Path snippets) {
    List<String> problems = new ArrayList<>();
    Map<Path, String> sources = new HashMap<>();
    for (Markdown doc : docs) {
      String where = root.relativize(doc.file()).toString();
      for (Markdown.Fence fence : doc.fences()) {
        if (!fence.language().equals("java")) {
          continue;
        }
        Optional<Matcher> marker = fence.comment().map(SNIPPET::matcher).filter(Matcher::find);
        if (marker.isEmpty()) {
          problems.add(
              where
                  + ":"
                  + fence.line()
                  + ": a java snippet without a source; put it in "
                  + "a file under "
                  + root.relativize(snippets)
                  + " between // tag::NAME[] and "
                  + "// end::NAME[], and write <!-- snippet: FILE#NAME --> on the line above the fence");
          continue;
        }
        String file = marker.get().group(1);
        String region = marker.get().group(2);
        Path source = snippets.resolve(file);
        if (!Files.isRegularFile(source)) {
          problems.add(
              where
                  + ":"
                  + fence.line()
                  + ": snippet source "
                  + file
                  + " does not exist under "
                  + root.relativize(snippets));
          continue;
        }
        String text = sources.computeIfAbsent(source, DocChecks::readString);
        Optional<String> code = region(text, region);
        if (code.isEmpty()) {
          problems.add(
              where
                  + ":"
                  + fence.line()
                  + ": "
                  + file
                  + " has no region '"
                  + region
                  + "' (// tag::"
                  + region
                  + "[] ... // end::"
                  + region
                  + "[])");
          continue;
        }
        difference(code.get(), dedent(fence.text()))
            .ifPresent(
                d ->
                    problems.add(
                        where
                            + ":"
                            + fence.line()
                            + ": the snippet differs from "
                            + file
                            + "#"
                            + region
                            + ", which compiles: "
                            + d
                            + "; copy the region into the Markdown, or change both together"));
      }
    }
    return problems;
  }

  /** Every relative link names a file or folder that exists, and an anchor its target has. */
  static List<String> links(Path root, List<Markdown> docs) {
    List<String> problems = new ArrayList<>();
    Map<Path, Markdown> parsed = new HashMap<>();
    for (Markdown doc : docs) {
      parsed.put(doc.file().toAbsolutePath().normalize(), doc);
    }
    for (Markdown doc : docs) {
      String where = root.relativize(doc.file()).toString();
      for (Markdown.Link link : doc.links()) {
        String target = link.target();
        if (target.matches("^[a-zA-Z][a-zA-Z0-9+.-]*:.*")) {
          continue; // https:, mailto: and the like are not checked here
        }
        int hash = target.indexOf('#');
        String path = hash < 0 ? target : target.substring(0, hash);
        String anchor = hash < 0 ? "" : target.substring(hash + 1);
        Path resolved =
            path.isEmpty() ? doc.file() : doc.file().getParent().resolve(path).normalize();
        if (!resolved.toAbsolutePath().normalize().startsWith(root.toAbsolutePath().normalize())) {
          problems.add(where + ":" + link.line() + ": link " + target + " leaves the repository");
          continue;
        }
        if (!Files.exists(resolved)) {
          problems.add(
              where
                  + ":"
                  + link.line()
                  + ": link "
                  + target
                  + " names "
                  + root.relativize(resolved)
                  + ", which does not exist");
          continue;
        }
        if (!anchor.isEmpty() && resolved.toString().endsWith(".md")) {
          Markdown target0 =
              parsed.computeIfAbsent(resolved.toAbsolutePath().normalize(), p -> Markdown.read(p));
          if (!target0.anchors().contains(anchor)) {
            problems.add(
                where
                    + ":"
                    + link.line()
                    + ": link "
                    + target
                    + ": "
                    + root.relativize(resolved)
                    + " has no heading with the anchor #"
                    + anchor);
          }
        }
      }
    }
    return problems;
  }

  /** The lines between {@code // tag::NAME[]} and {@code // end::NAME[]}, without their indent. */
  static Optional<String> region(String source, String name) {
    String[] lines = source.split("\n", -1);
    int start = -1;
    for (int i = 0; i < lines.length; i++) {
      String line = lines[i].strip();
      if (line.equals("// tag::" + name + "[]")) {
        start = i + 1;
      } else if (line.equals("// end::" + name + "[]") && start >= 0) {
        return Optional.of(
            dedent(String.join("\n", Arrays.asList(lines).subList(start, i)) + "\n"));
      }
    }
    return Optional.empty();
  }

  /** The text with the indentation common to its non-blank lines removed. */
  static String dedent(String text) {
    List<String> lines = Arrays.asList(text.split("\n", -1));
    int indent =
        lines.stream()
            .filter(l -> !l.isBlank())
            .mapToInt(l -> l.length() - l.stripLeading().length())
            .min()
            .orElse(0);
    return lines.stream()
            .map(l -> l.isBlank() ? "" : l.substring(indent).stripTrailing())
            .collect(Collectors.joining("\n"))
            .strip()
        + "\n";
  }

  /** The first line where two texts differ, as "line N: expected ... found ...". */
  static Optional<String> difference(String expected, String found) {
    String[] e = expected.split("\n", -1);
    String[] f = found.split("\n", -1);
    for (int i = 0; i < Math.max(e.length, f.length); i++) {
      String a = i < e.length ? e[i] : "(end)";
      String b = i < f.length ? f[i] : "(end)";
      if (!a.equals(b)) {
        return Optional.of(
            "line " + (i + 1) + " of the snippet: expected `" + a + "`, found `" + b + "`");
      }
    }
    return Optional.empty();
  }

  private static String readString(Path file) {
    try {
      return Files.readString(file);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
