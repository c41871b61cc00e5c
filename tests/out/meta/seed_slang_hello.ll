; ModuleID = "wgc"
target triple = "dxil-ms-dx"
target datalayout = ""

%"class.RWStructuredBuffer<int>" = type opaque
declare void @"MyGraphRoot"()

declare void @"MyChildNode"()

@"Output" = external constant %"class.RWStructuredBuffer<int>"
!dx.version = !{ !0 }
!dx.shaderModel = !{ !1 }
!dx.resources = !{ !5 }
!dx.entryPoints = !{ !6, !14, !19 }
!wgc.spirv.entryPoints = !{ !20, !21 }
!wgc.experimental.tags = !{ !22, !23 }
!llvm.ident = !{ !24 }
!0 = !{ i32 1, i32 9 }
!1 = !{ !"lib", i32 6, i32 9 }
!2 = !{ i32 1, i32 4 }
!3 = !{ i32 0, %"class.RWStructuredBuffer<int>"* @"Output", !"Output", i32 0, i32 0, i32 1, i32 12, i1 false, i1 false, i1 false, !2 }
!4 = !{ !3 }
!5 = !{ null, !4, null, null }
!6 = !{ null, !"", null, !5, null }
!7 = !{ !"MyGraphRoot", i32 0 }
!8 = !{ i32 0, i32 4, i32 2, i32 4 }
!9 = !{ !"MyChildNode", i32 0 }
!10 = !{ i32 1, i32 6, i32 2, !8, i32 3, i32 1, i32 0, !9 }
!11 = !{ !10 }
!12 = !{ i32 1, i32 1, i32 1 }
!13 = !{ i32 8, i32 15, i32 13, i32 3, i32 15, !7, i32 16, i32 -1, i32 21, !11, i32 4, !12 }
!14 = !{ void ()* @"MyGraphRoot", !"MyGraphRoot", null, null, !13 }
!15 = !{ i32 1, i32 97, i32 2, !8 }
!16 = !{ !15 }
!17 = !{ i32 8, i32 8, i32 1 }
!18 = !{ i32 8, i32 15, i32 13, i32 1, i32 15, !9, i32 16, i32 -1, i32 18, !12, i32 20, !16, i32 4, !17 }
!19 = !{ void ()* @"MyChildNode", !"MyChildNode", null, null, !18 }
!20 = !{ void ()* @"MyGraphRoot", !"MyGraphRoot" }
!21 = !{ void ()* @"MyChildNode", !"MyChildNode" }
!22 = !{ !"NodeMaxLoopIterations", i32 131072 }
!23 = !{ !"NodeMaxRecordsPerLoopIteration", i32 131073 }
!24 = !{ !"wgc 0.1.0" }
