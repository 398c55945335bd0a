package dev.elector.bench;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * A Markdown table: a header, its rule, then rows; every cell is padded by one space on each side.
 * An empty header cell is written as one space ({@code | |}), an empty row cell as two.
 */
final class MarkdownTable {
  private final List<String> header;
  private final List<List<String>> rows = new ArrayList<>();

  MarkdownTable(String... header) {
    this(List.of(header));
  }

  MarkdownTable(List<String> header) {
    this.header = List.copyOf(header);
  }

  /**
   * Adds a row; it must have as many cells as the header.
   *
   * @throws IllegalArgumentException naming both counts otherwise
   */
  MarkdownTable row(Object... cells) {
    if (cells.length != header.size()) {
      throw new IllegalArgumentException(
          "a row of "
              + cells.length
              + " cells in a table of "
              + header.size()
              + " columns: "
              + Arrays.toString(cells));
    }
    rows.add(Arrays.stream(cells).map(String::valueOf).toList());
    return this;
  }

  /** Appends the table, followed by {@code after} (a blank line, or nothing). */
  void appendTo(StringBuilder md, String after) {
    md.append('|');
    for (String cell : header) {
      md.append(cell.isEmpty() ? " |" : " " + cell + " |");
    }
    md.append("\n|").append("---|".repeat(header.size())).append('\n');
    for (List<String> row : rows) {
      md.append('|');
      for (String cell : row) {
        md.append(' ').append(cell).append(" |");
      }
      md.append('\n');
    }
    md.append(after);
  }
}
