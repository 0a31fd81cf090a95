// A flame graph in the layout of flamegraph.pl: root at the bottom, children sorted by
// name, width proportional to weight, a <title> tooltip per frame. Plain SVG so that it
// opens offline in any browser.
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "export/cpu/cpu_outputs.h"
#include "export/markup_escape.h"

namespace aiprof::exporter {

namespace {

struct Node {
  uint64_t weight = 0;
  std::map<std::string, Node> children;
};

// A stable warm colour per name, as flamegraph.pl's "hot" palette.
std::string Colour(const std::string& name) {
  uint32_t hash = 2166136261u;
  for (char c : name) hash = (hash ^ static_cast<uint8_t>(c)) * 16777619u;
  int r = 205 + static_cast<int>(hash % 50);
  int g = static_cast<int>((hash >> 8) % 230);
  int b = static_cast<int>((hash >> 16) % 55);
  return "rgb(" + std::to_string(r) + "," + std::to_string(g) + "," + std::to_string(b) + ")";
}

constexpr double kWidth = 1200, kFrameHeight = 16, kPad = 10;

void Draw(const std::string& name, const Node& node, double x, int depth, int max_depth,
          double scale, uint64_t total, const std::string& unit, std::ostream& out) {
  double width = static_cast<double>(node.weight) * scale;
  if (width < 0.1) return;
  double y = kPad + 24 + (max_depth - depth) * kFrameHeight;
  char pct[32];
  std::snprintf(pct, sizeof(pct), "%.2f",
                100.0 * static_cast<double>(node.weight) / static_cast<double>(total));
  out << "<g><title>" << EscapeMarkup(name) << " (" << node.weight << ' ' << unit << ", " << pct
      << "%)</title><rect x=\"" << x << "\" y=\"" << y << "\" width=\"" << width << "\" height=\""
      << kFrameHeight - 1 << "\" fill=\"" << Colour(name) << "\" rx=\"2\"/>";
  size_t chars = static_cast<size_t>(width / 7);
  if (chars >= 3) {
    std::string label = name.size() <= chars ? name : name.substr(0, chars - 2) + "..";
    out << "<text x=\"" << x + 3 << "\" y=\"" << y + kFrameHeight - 4 << "\">"
        << EscapeMarkup(label) << "</text>";
  }
  out << "</g>\n";
  double child_x = x;
  for (const auto& [child_name, child] : node.children) {
    Draw(child_name, child, child_x, depth + 1, max_depth, scale, total, unit, out);
    child_x += static_cast<double>(child.weight) * scale;
  }
}

int Depth(const Node& node) {
  int deepest = 0;
  for (const auto& [name, child] : node.children) deepest = std::max(deepest, 1 + Depth(child));
  return deepest;
}

}  // namespace

bool WriteFlameGraphSvg(const std::map<std::string, uint64_t>& folded, const std::string& title,
                        const std::string& unit, const std::string& path, std::string* error) {
  Node root;
  for (const auto& [stack, weight] : folded) {
    Node* node = &root;
    root.weight += weight;
    size_t begin = 0;
    while (begin <= stack.size()) {
      size_t end = stack.find(';', begin);
      if (end == std::string::npos) end = stack.size();
      node = &node->children[stack.substr(begin, end - begin)];
      node->weight += weight;
      begin = end + 1;
    }
  }
  int max_depth = Depth(root);
  double height = kPad * 2 + 24 + (max_depth + 1) * kFrameHeight;
  std::ofstream out(path, std::ios::binary);
  out << "<?xml version=\"1.0\" standalone=\"no\"?>\n"
      << "<svg version=\"1.1\" width=\"" << kWidth << "\" height=\"" << height
      << "\" xmlns=\"http://www.w3.org/2000/svg\" font-family=\"Verdana\" font-size=\"11\">\n"
      << "<rect width=\"100%\" height=\"100%\" fill=\"#f8f8f8\"/>\n"
      << "<text x=\"" << kWidth / 2 << "\" y=\"" << kPad + 12
      << "\" text-anchor=\"middle\" font-size=\"15\">" << EscapeMarkup(title) << " (" << root.weight
      << ' ' << unit << ")</text>\n";
  if (root.weight > 0) {
    double scale = (kWidth - 2 * kPad) / static_cast<double>(root.weight);
    Draw("all", root, kPad, 0, max_depth, scale, root.weight, unit, out);
  }
  out << "</svg>\n";
  out.close();
  if (!out) *error = "cannot write " + path;
  return static_cast<bool>(out);
}

}  // namespace aiprof::exporter
