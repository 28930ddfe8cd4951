#include "evaluators/judge/object_check.hpp"

#include <gelf.h>
#include <libelf.h>

#include <chrono>
#include <regex>
#include <set>
#include <sstream>

#include "base/subprocess.hpp"

namespace accelopt::eval::judge {

Status CheckObjectFile(const std::string& so_path, const std::string& function, Env* env) {
  auto size = env->FileSize(so_path);
  if (!size.ok()) return IOError(so_path + ": " + size.status().message());
  if (*size > kMaxObjectBytes) {
    return PermissionDenied("the kernel object is " + std::to_string(*size >> 20) + " MiB, over the " +
                            std::to_string(kMaxObjectBytes >> 20) + " MiB limit");
  }
  if (elf_version(EV_CURRENT) == EV_NONE) return Internal("libelf: version mismatch");
  auto image = env->ReadFile(so_path);
  if (!image.ok()) return IOError(so_path + ": cannot read: " + image.status().message());
  Elf* elf = elf_memory(image->data(), image->size());
  if (!elf) return InvalidArgument(so_path + ": not an ELF file");
  std::set<size_t> exec_sections;
  for (Elf_Scn* scn = nullptr; (scn = elf_nextscn(elf, scn)) != nullptr;) {
    GElf_Shdr sh;
    if (gelf_getshdr(scn, &sh) && (sh.sh_flags & SHF_EXECINSTR)) exec_sections.insert(elf_ndxscn(scn));
  }
  bool defines = false;
  std::string data_in_code;
  for (Elf_Scn* scn = nullptr; (scn = elf_nextscn(elf, scn)) != nullptr;) {
    GElf_Shdr sh;
    if (!gelf_getshdr(scn, &sh) || (sh.sh_type != SHT_DYNSYM && sh.sh_type != SHT_SYMTAB)) continue;
    Elf_Data* data = elf_getdata(scn, nullptr);
    const size_t count = sh.sh_entsize ? sh.sh_size / sh.sh_entsize : 0;
    for (size_t i = 0; data && i < count; ++i) {
      GElf_Sym sym;
      if (!gelf_getsym(data, static_cast<int>(i), &sym)) continue;
      const char* name = elf_strptr(elf, sh.sh_link, sym.st_name);
      const int type = GELF_ST_TYPE(sym.st_info);
      if (type == STT_OBJECT && exec_sections.count(sym.st_shndx) && data_in_code.empty())
        data_in_code = name && *name ? name : "?";
      if (sh.sh_type == SHT_DYNSYM && name && function == name && sym.st_shndx != SHN_UNDEF &&
          (type == STT_FUNC || type == STT_GNU_IFUNC))
        defines = true;
    }
  }
  elf_end(elf);
  if (!data_in_code.empty()) {
    return PermissionDenied("data symbol '" + data_in_code +
                            "' lies in an executable section: machine code no compiler wrote");
  }
  if (!defines) {
    return PermissionDenied("the kernel does not define extern \"C\" " + function +
                            " (declare it extern \"C\", with the problem's signature)");
  }
  return Status::Ok();
}

Result<std::vector<std::string>> UndefinedSymbols(const std::string& so_path, Env* env) {
  if (elf_version(EV_CURRENT) == EV_NONE) return Internal("libelf: version mismatch");
  auto image = env->ReadFile(so_path);
  if (!image.ok()) return IOError(so_path + ": cannot read: " + image.status().message());
  Elf* elf = elf_memory(image->data(), image->size());
  if (!elf) return InvalidArgument(so_path + ": not an ELF file");
  std::vector<std::string> out;
  bool found = false;
  Elf_Scn* scn = nullptr;
  while ((scn = elf_nextscn(elf, scn)) != nullptr) {
    GElf_Shdr sh;
    if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_DYNSYM) continue;
    found = true;
    Elf_Data* data = elf_getdata(scn, nullptr);
    size_t count = sh.sh_entsize ? sh.sh_size / sh.sh_entsize : 0;
    for (size_t i = 0; data && i < count; ++i) {
      GElf_Sym sym;
      if (!gelf_getsym(data, static_cast<int>(i), &sym)) continue;
      if (sym.st_shndx != SHN_UNDEF) continue;
      const char* name = elf_strptr(elf, sh.sh_link, sym.st_name);
      if (name && *name) out.emplace_back(name);
    }
  }
  elf_end(elf);
  if (!found) return InvalidArgument(so_path + ": no dynamic symbol table");
  return out;
}

Status CheckInstructions(const std::string& so_path, Env* env) {
  ProcessSpec spec;
  spec.argv = {"objdump", "-d", "--no-show-raw-insn", so_path};
  spec.timeout = std::chrono::seconds(20);
  spec.max_output_bytes = 64 << 20;
  auto r = env->RunProcess(spec);
  if (!r.ok()) return Unavailable("objdump: " + r.status().message());
  if (!r->Succeeded()) return Unavailable("objdump " + r->Describe() + ": " + r->stderr_data.substr(0, 300));
  if (r->stdout_truncated)
    return PermissionDenied("the kernel's machine code is too large to check (> 64 MiB of disassembly)");
  // Direct system calls, time stamp counters, and reduced-precision
  // arithmetic: F16C, AVX512-BF16/FP16, AVX-NE-CONVERT, VNNI (AVX512 and
  // AVX-VNNI, -INT8, -INT16) and every AMX instruction (tiles, their
  // configuration and their dot products).
  static const std::regex kBad(
      R"(^(syscall|sysenter|int|rdtsc|rdtscp|rdpid|vcvtps2ph|vcvtph2ps\w*|vcvtneps2bf16\w*|vcvtne2ps2bf16|vdpbf16ps|)"
      R"(vbcstnebf162ps|vbcstnesh2ps|vcvtnee\w+|vcvtneo\w+|vpdpb[su]{2}ds?|vpdpw[su]{2}ds?|)"
      R"(v\w*(ph|sh)|v\w*(2ph|ph2|2sh|sh2)\w*|)"
      R"(ldtilecfg|sttilecfg|tilerelease|tilezero|tileloadd\w*|tilestored|tdp\w+|tcmm\w+|t\w*tile\w*)$)");
  std::istringstream in(r->stdout_data);
  std::string line, func;
  while (std::getline(in, line)) {
    if (line.size() > 2 && line.back() == ':' && line.find('<') != std::string::npos) {
      func = line.substr(line.find('<'));
      continue;
    }
    size_t tab = line.find(":\t");
    if (tab == std::string::npos) continue;
    std::string rest = line.substr(tab + 2);
    // Encoding and legacy prefixes ("{vex} vpdpbusd", "lock add", "notrack jmp") come before the mnemonic.
    for (;;) {
      const std::string word = rest.substr(0, rest.find_first_of(" \t"));
      const bool prefix = (!word.empty() && word.front() == '{') || word == "lock" || word == "rep" || word == "repz" ||
                          word == "repnz" || word == "repe" || word == "repne" || word == "notrack" || word == "bnd" ||
                          word == "data16" || word == "addr32" || word == "rex" || word == "rex.W" || word == "ds" ||
                          word == "cs" || word == "xacquire" || word == "xrelease";
      const size_t next = rest.find_first_not_of(" \t", word.size());
      if (!prefix || next == std::string::npos) break;
      rest = rest.substr(next);
    }
    std::string mnem = rest.substr(0, rest.find_first_of(" \t"));
    if (mnem == "int" && rest.find("$0x80") == std::string::npos) continue;  // int3 etc. are harmless
    if (!std::regex_match(mnem, kBad)) continue;
    std::string what = (mnem == "syscall" || mnem == "sysenter" || mnem == "int") ? "a direct system call"
                       : (mnem.rfind("rd", 0) == 0)                               ? "reading a time stamp counter"
                                                                                  : "reduced-precision arithmetic";
    return PermissionDenied("instruction '" + mnem + "' in " + func + " is not allowed (" + what + ")");
  }
  return Status::Ok();
}

}  // namespace accelopt::eval::judge
