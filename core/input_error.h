#pragma once
// One clear error line for bad input: "file:line: key: message", or for a bad command line
// "command: flag: message" (usage()). Thrown by every parser and every command's option checks;
// the CLI prints what() and exits with status 2. It is the one exception type for bad input.
#include <stdexcept>
#include <string>

namespace cstsim {

class InputError : public std::runtime_error {
 public:
  InputError(std::string file, int line, std::string key, const std::string& message)
      : std::runtime_error(format(file, line, key, message)),
        file_(std::move(file)), line_(line), key_(std::move(key)), message_(message) {}

  const std::string& file() const { return file_; }
  int line() const { return line_; }  // 1-based; 0 when the problem is not tied to a line
  const std::string& key() const { return key_; }
  const std::string& message() const { return message_; }  // without file, line and key

  // A bad command line: "<command>: <flag>: <message>", each part only when given (file() is the
  // command, key() the flag, line() 0).
  static InputError usage(const std::string& command, const std::string& flag, const std::string& message) {
    std::string text;
    if (!command.empty()) text += command + ": ";
    if (!flag.empty()) text += flag + ": ";
    return InputError(one_line(text + message), command, flag, message);
  }

 private:
  static std::string format(const std::string& file, int line, const std::string& key,
                            const std::string& message) {
    std::string out = file.empty() ? std::string("<input>") : file;
    if (line > 0) out += ":" + std::to_string(line);
    out += ": ";
    if (!key.empty()) out += key + ": ";
    return one_line(out + message);
  }
  InputError(const std::string& text, std::string file, std::string key, const std::string& message)
      : std::runtime_error(text), file_(std::move(file)), line_(0), key_(std::move(key)), message_(message) {}
  // Quoted values may carry newlines or tabs; escape them so an error stays one line.
 public:
  static std::string one_line(const std::string& text) {
    std::string out;
    for (char c : text) {
      if (c == '\n') out += "\\n";
      else if (c == '\r') out += "\\r";
      else if (static_cast<unsigned char>(c) < 0x20) out += ' ';
      else out += c;
    }
    return out;
  }

 private:
  std::string file_;
  int line_;
  std::string key_;
  std::string message_;
};

}  // namespace cstsim
