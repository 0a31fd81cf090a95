// ArgTable's one lookup (Find) and its typed getters, which replaced a dozen hand-rolled
// loops over set_begin.
#include <gtest/gtest.h>

#include <bit>

#include "model/model.h"

namespace aiprof::model {
namespace {

class ArgTableTest : public testing::Test {
 protected:
  void SetUp() override {
    bytes_ = strings_.Intern("Bytes");
    ratio_ = strings_.Intern("ratio");
    name_ = strings_.Intern("name");
    json_ = strings_.Intern("Input Dims");
    unsigned_ = strings_.Intern("id");
    value_text_ = strings_.Intern("aten::add");
    // Set 1: four arguments; set 2: one; set 0 is the empty set.
    Add(bytes_, ArgType::kInt, static_cast<uint64_t>(int64_t{-4096}));
    Add(ratio_, ArgType::kDouble, std::bit_cast<uint64_t>(2.75));
    Add(name_, ArgType::kString, value_text_);
    Add(json_, ArgType::kJson, value_text_);
    args_.set_begin.push_back(static_cast<uint32_t>(args_.key.size()));
    Add(unsigned_, ArgType::kUInt, 18446744073709551615u);
    args_.set_begin.push_back(static_cast<uint32_t>(args_.key.size()));
  }
  void Add(StringId key, ArgType type, uint64_t value) {
    args_.key.push_back(key);
    args_.type.push_back(type);
    args_.value.push_back(value);
  }

  StringPool strings_;
  ArgTable args_;
  StringId bytes_ = 0, ratio_ = 0, name_ = 0, json_ = 0, unsigned_ = 0, value_text_ = 0;
};

TEST_F(ArgTableTest, FindsAKeyInItsSetOnly) {
  ASSERT_EQ(args_.sets(), 3u);
  EXPECT_EQ(args_.Find(1, ratio_), 1u);
  EXPECT_EQ(args_.Find(2, unsigned_), 4u);
  EXPECT_EQ(args_.Find(2, bytes_), ArgTable::kNotFound);  // in set 1, not set 2
  EXPECT_EQ(args_.Find(0, bytes_), ArgTable::kNotFound);  // the empty set
  EXPECT_EQ(args_.Find(3, bytes_), ArgTable::kNotFound);  // beyond the table
  EXPECT_EQ(args_.Find(1, strings_.Find("never interned")), ArgTable::kNotFound);
}

TEST_F(ArgTableTest, TypedGettersConvertNumbersAndRefuseOtherTypes) {
  EXPECT_EQ(args_.Int(1, bytes_), -4096);
  EXPECT_EQ(args_.Int(1, ratio_), 2);  // a double truncated
  EXPECT_EQ(args_.Int(1, name_), std::nullopt);
  EXPECT_EQ(args_.Number(1, ratio_), 2.75);
  EXPECT_EQ(args_.Number(1, bytes_), -4096.0);
  EXPECT_EQ(args_.Number(2, unsigned_), 18446744073709551615.0);
  EXPECT_EQ(args_.Number(1, json_), std::nullopt);
  EXPECT_EQ(args_.Bits(1, ratio_), std::bit_cast<uint64_t>(2.75));
}

TEST_F(ArgTableTest, TextOfStringAndJsonArguments) {
  EXPECT_EQ(args_.Text(1, name_), value_text_);
  EXPECT_EQ(args_.Text(1, json_), value_text_);
  EXPECT_EQ(args_.Text(1, bytes_), std::nullopt);
  EXPECT_EQ(args_.TextOfType(1, json_, ArgType::kJson), value_text_);
  EXPECT_EQ(args_.TextOfType(1, name_, ArgType::kJson), std::nullopt);
  EXPECT_EQ(args_.Text(0, name_), std::nullopt);
}

}  // namespace
}  // namespace aiprof::model
