//! `#[module]`: model structs whose every tensor moves with `to(device)`, checked at compile
//! time. Use it through `placer_runtime::module` (re-exported), as serde's derive.
//!
//! ```ignore
//! use placer_runtime::{module, nn::Linear, Device, Tensor};
//!
//! #[module]
//! struct Attention {
//!     qkv: Linear,                                 // sub-module: moved recursively
//!     #[buffer] causal_mask: Tensor,               // moves with the model, saved in state_dict
//!     #[buffer(persistent = false)] rope: Tensor,  // moves, not saved (PyTorch persistent=False)
//!     #[param] scale: Tensor,                      // a parameter
//!     device: Device,                              // updated by to()
//!     #[skip] name: String,                        // explicitly not a module part
//!     n_heads: usize,                              // plain data
//! }
//! ```
//!
//! The attribute implements `placer_runtime::Module` for the struct. Every field is classified
//! by its type through `placer_runtime::ModuleField`: tensors (with `#[param]` or `#[buffer]`),
//! containers of module parts and types implementing `Module` are walked; primitives,
//! `String`, `DType` are plain data; `Device` fields are updated by `to`. A field of any other
//! type is a compile error at its type, so no tensor can hide from `to()`, as a tensor kept on
//! a `torch.nn.Module` without `register_buffer` does.

use proc_macro::TokenStream;
use proc_macro2::{Span, TokenStream as TokenStream2};
use quote::{quote, quote_spanned, ToTokens};
use syn::parse::Parser;
use syn::spanned::Spanned;
use syn::{Attribute, Item, ItemStruct, LitBool, Meta, Type};

/// Implements `placer_runtime::Module` for a struct: parameters, buffers and sub-modules are
/// named by field ("qkv.weight", "heads.0.scale") in declaration order, and `to(device)` moves
/// all of them (and updates `Device` fields) or, on error, none.
///
/// Field attributes: `#[param]` (a trainable parameter, as `nn.Parameter`), `#[buffer]` (moved
/// and saved, as `register_buffer`), `#[buffer(persistent = false)]` (moved, not saved, as
/// `register_buffer(.., persistent=False)`), `#[skip]` (not part of the module).
///
/// # Errors (at compile time)
/// Spanned errors with a hint, all reported at once: an enum or union; arguments to
/// `#[module]`; a field whose type mentions `Tensor` without `#[param]` or `#[buffer]`; unknown
/// or conflicting field attributes; and (from the type checker) a field type that is not a
/// module part.
#[proc_macro_attribute]
pub fn module(args: TokenStream, input: TokenStream) -> TokenStream {
    expand(args.into(), input.into()).into()
}

/// How a field takes part in the module.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Role {
    /// Walked, with the parent's kind (sub-modules decide for their own fields).
    Walk,
    /// Walked as parameters.
    Param,
    /// Walked as buffers.
    Buffer { persistent: bool },
    /// Not part of the module.
    Skip,
}

struct Field {
    /// `self.<access>`: a name or a tuple index.
    access: TokenStream2,
    /// The name parameters and buffers get under it ("qkv", "0").
    name: String,
    ty: Type,
    role: Role,
}

#[allow(clippy::needless_pass_by_value)] // token streams are handed over by the compiler
fn expand(args: TokenStream2, input: TokenStream2) -> TokenStream2 {
    let mut errors: Option<syn::Error> = None;
    let mut push = |e: syn::Error| match &mut errors {
        Some(all) => all.combine(e),
        None => errors = Some(e),
    };
    if !args.is_empty() {
        push(syn::Error::new(
            args.span(),
            "`#[module]` takes no arguments\n\
             help: mark fields with `#[param]`, `#[buffer]`, `#[buffer(persistent = false)]` or `#[skip]`",
        ));
    }
    let item: Item = match syn::parse2(input.clone()) {
        Ok(item) => item,
        Err(e) => return e.to_compile_error(),
    };
    let mut item = match item {
        Item::Struct(s) => s,
        Item::Enum(e) => {
            let mut err = syn::Error::new(
                e.enum_token.span,
                "`#[module]` works on structs, not enums\n\
                 help: put the variants' tensors in a struct, or implement `Module` by hand",
            );
            if let Some(all) = errors {
                err.combine(all);
            }
            let mut out = err.to_compile_error();
            out.extend(input);
            return out;
        }
        other => {
            let err = syn::Error::new(
                other.span(),
                "`#[module]` works on structs only\nhelp: apply it to a `struct` definition",
            );
            let mut out = err.to_compile_error();
            out.extend(input);
            return out;
        }
    };
    let fields = collect_fields(&mut item, &mut push);
    let generated = if errors.is_none() {
        implementation(&item, &fields)
    } else {
        TokenStream2::new()
    };
    let errors = errors.map(|e| e.to_compile_error()).unwrap_or_default();
    // The struct is always emitted (attributes stripped), so one mistake does not cascade into
    // "cannot find type" errors everywhere it is used.
    quote! {
        #errors
        #item
        #generated
    }
}

/// Whether a type names `Tensor` anywhere (`Tensor`, `Option<Tensor>`, `Vec<placer_runtime::Tensor>`).
fn mentions_tensor(ty: &Type) -> bool {
    ty.to_token_stream().into_iter().any(|t| match t {
        proc_macro2::TokenTree::Ident(i) => i == "Tensor",
        proc_macro2::TokenTree::Group(g) => syn::parse2::<Type>(g.stream()).map_or_else(
            |_| g.stream().to_string().contains("Tensor"),
            |t| mentions_tensor(&t),
        ),
        _ => false,
    })
}

/// Parses and strips the field attributes; reports misuse through `push`.
/// Returns the role and its attribute's span; `Err(())` when a placer attribute was present but
/// malformed (already reported: no "needs an attribute" error follows).
#[allow(clippy::result_unit_err)]
fn role_of(
    attrs: &mut Vec<Attribute>,
    push: &mut impl FnMut(syn::Error),
) -> Result<Option<(Role, Span)>, ()> {
    let mut found: Option<(Role, Span)> = None;
    let mut malformed = false;
    let mut keep = Vec::with_capacity(attrs.len());
    for attr in attrs.drain(..) {
        let Some(ident) = attr.path().get_ident().map(ToString::to_string) else {
            keep.push(attr);
            continue;
        };
        let role = match ident.as_str() {
            "param" | "skip" => {
                if let Meta::Path(_) = &attr.meta {
                    Some(if ident == "param" {
                        Role::Param
                    } else {
                        Role::Skip
                    })
                } else {
                    push(syn::Error::new(
                        attr.meta.span(),
                        format!("`#[{ident}]` takes no arguments\nhelp: write `#[{ident}]`"),
                    ));
                    None
                }
            }
            "buffer" => match &attr.meta {
                Meta::Path(_) => Some(Role::Buffer { persistent: true }),
                Meta::List(list) => {
                    let mut persistent = true;
                    let parsed = syn::meta::parser(|meta| {
                        if meta.path.is_ident("persistent") {
                            let value: LitBool = meta.value()?.parse().map_err(|e| {
                                syn::Error::new(
                                    e.span(),
                                    "`persistent` takes `true` or `false`\n\
                                     help: write `#[buffer(persistent = false)]`",
                                )
                            })?;
                            persistent = value.value;
                            Ok(())
                        } else {
                            Err(meta.error(
                                "unknown `#[buffer]` option\nhelp: the only option is `persistent = false`",
                            ))
                        }
                    })
                    .parse2(list.tokens.clone());
                    match parsed {
                        Ok(()) => Some(Role::Buffer { persistent }),
                        Err(e) => {
                            push(e);
                            None
                        }
                    }
                }
                Meta::NameValue(nv) => {
                    push(syn::Error::new(
                        nv.span(),
                        "write `#[buffer]` or `#[buffer(persistent = false)]`",
                    ));
                    None
                }
            },
            _ => {
                keep.push(attr);
                continue;
            }
        };
        let span = attr.meta.path().span();
        malformed |= role.is_none();
        if let Some(role) = role {
            if let Some((_, first)) = found {
                let mut e = syn::Error::new(
                    span,
                    "a field takes one of `#[param]`, `#[buffer]` and `#[skip]`\nhelp: remove one of them",
                );
                e.combine(syn::Error::new(first, "first marked here"));
                push(e);
            } else {
                found = Some((role, span));
            }
        }
    }
    *attrs = keep;
    if malformed && found.is_none() {
        Err(())
    } else {
        Ok(found)
    }
}

fn collect_fields(item: &mut ItemStruct, push: &mut impl FnMut(syn::Error)) -> Vec<Field> {
    let mut out = Vec::new();
    for (i, field) in item.fields.iter_mut().enumerate() {
        let role = role_of(&mut field.attrs, push);
        let (access, name) = if let Some(id) = &field.ident {
            (
                id.to_token_stream(),
                id.to_string().trim_start_matches("r#").to_string(),
            )
        } else {
            (syn::Index::from(i).to_token_stream(), i.to_string())
        };
        let tensorish = mentions_tensor(&field.ty);
        let role = match role {
            Err(()) => Some((Role::Skip, Span::call_site())),
            Ok(role) => role,
        };
        let role = match role {
            Some((Role::Skip, _)) => Role::Skip,
            Some((role, span)) => {
                if !tensorish {
                    push(syn::Error::new(
                        span,
                        "`#[param]` and `#[buffer]` mark tensors, and this field's type has no `Tensor`\n\
                         help: remove the attribute: sub-modules decide for their own tensors",
                    ));
                }
                role
            }
            None => {
                if tensorish {
                    push(syn::Error::new(
                        field.ty.span(),
                        format!(
                            "tensor field `{name}` needs `#[param]` or `#[buffer]`\n\
                             help: `#[param]` for a trained weight (as `nn.Parameter`), `#[buffer]` for a mask or \
                             statistic that moves with the model (as `register_buffer`), `#[skip]` to leave it out"
                        ),
                    ));
                }
                Role::Walk
            }
        };
        out.push(Field {
            access,
            name,
            ty: field.ty.clone(),
            role,
        });
    }
    out
}

fn implementation(item: &ItemStruct, fields: &[Field]) -> TokenStream2 {
    let name = &item.ident;
    let (impl_generics, ty_generics, where_clause) = item.generics.split_for_impl();
    let rt = quote!(::placer_runtime);
    let mut predicates: Vec<TokenStream2> = where_clause
        .map(|w| w.predicates.iter().map(ToTokens::to_token_stream).collect())
        .unwrap_or_default();
    let mut visit = Vec::new();
    let mut visit_mut = Vec::new();
    let mut devices = Vec::new();
    for f in fields.iter().filter(|f| f.role != Role::Skip) {
        let ty = &f.ty;
        let access = &f.access;
        let fname = &f.name;
        // The bound carries the field type's span: a type that is not a module part is reported
        // at the field, with the trait's `on_unimplemented` hint.
        predicates.push(quote_spanned! {ty.span()=> #ty: ::placer_runtime::ModuleField });
        let kind = match f.role {
            Role::Param => quote!(#rt::TensorKind::Parameter),
            Role::Buffer { persistent: true } => quote!(#rt::TensorKind::Buffer),
            Role::Buffer { persistent: false } => quote!(#rt::TensorKind::NonPersistentBuffer),
            Role::Walk | Role::Skip => quote!(kind),
        };
        visit.push(quote! {
            #rt::ModuleField::visit_field(&self.#access, &#rt::join_name(prefix, #fname), #kind, f);
        });
        visit_mut.push(quote! {
            #rt::ModuleField::visit_field_mut(&mut self.#access, &#rt::join_name(prefix, #fname), #kind, f)?;
        });
        devices.push(quote! {
            #rt::ModuleField::visit_devices_mut(&mut self.#access, f);
        });
    }
    let where_tokens = if predicates.is_empty() {
        quote!()
    } else {
        quote!(where #(#predicates),*)
    };
    quote! {
        #[automatically_derived]
        impl #impl_generics #rt::Module for #name #ty_generics #where_tokens {
            fn visit(
                &self,
                prefix: &str,
                kind: #rt::TensorKind,
                f: &mut dyn FnMut(&str, &#rt::Tensor, #rt::TensorKind),
            ) {
                let _ = (&prefix, &kind, &f);
                #(#visit)*
            }

            fn visit_mut(
                &mut self,
                prefix: &str,
                kind: #rt::TensorKind,
                f: &mut dyn FnMut(&str, &mut #rt::Tensor, #rt::TensorKind) -> #rt::Result<()>,
            ) -> #rt::Result<()> {
                let _ = (&prefix, &kind, &f);
                #(#visit_mut)*
                Ok(())
            }

            fn visit_devices_mut(&mut self, f: &mut dyn FnMut(&mut #rt::Device)) {
                let _ = &f;
                #(#devices)*
            }
        }
    }
}
